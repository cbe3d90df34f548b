/** A locale as the locale rules read it (core `schemas/locales.ts` `Locale`). */
export interface LocaleLike {
  code: string;
  default?: boolean;
  fallback?: string | null;
  enabled?: boolean;
}

/** The placeholder of a route pattern or route path that emits one page per locale. */
export const LOCALE_PLACEHOLDER = /\{\s*locale\s*\}/g;

/** Whether a route pattern (or route path) has a `{locale}` placeholder. */
export function hasLocalePlaceholder(pattern: string | null | undefined): boolean {
  return typeof pattern === 'string' && /\{\s*locale\s*\}/.test(pattern);
}

/** A pattern with its `{locale}` placeholders filled with `code`. */
export function fillLocale(pattern: string, code: string): string {
  return pattern.replace(LOCALE_PLACEHOLDER, code);
}

/** The default locale: the one marked `default`, else the first by code; null without locales. */
export function defaultLocaleOf<L extends LocaleLike>(locales: readonly L[]): L | null {
  if (locales.length === 0) return null;
  return locales.find((locale) => locale.default === true) ?? [...locales].sort(byCode)[0] ?? null;
}

/** The locales a build emits pages for: the enabled ones, the default first, then by code. */
export function publishedLocales<L extends LocaleLike>(locales: readonly L[]): L[] {
  const fallbackDefault = defaultLocaleOf(locales);
  return locales
    .filter((locale) => locale.enabled !== false || locale === fallbackDefault)
    .sort((a, b) => (a === fallbackDefault ? -1 : b === fallbackDefault ? 1 : byCode(a, b)));
}

function byCode(a: LocaleLike, b: LocaleLike): number {
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}

/**
 * Where a locale looks for a value, in order: itself, its `fallback`, that one's fallback, ...,
 * then the default locale. Each locale at most once (a cycle ends the chain); codes that name
 * no locale are skipped.
 */
export function localeChain(locales: readonly LocaleLike[], code: string): string[] {
  const byCodeMap = new Map(locales.map((locale) => [locale.code, locale]));
  const chain: string[] = [];
  let current: string | null | undefined = code;
  while (current && !chain.includes(current)) {
    const locale = byCodeMap.get(current);
    if (!locale && current !== code) break;
    chain.push(current);
    current = locale?.fallback ?? null;
  }
  const fallbackDefault = defaultLocaleOf(locales);
  if (fallbackDefault && !chain.includes(fallbackDefault.code)) chain.push(fallbackDefault.code);
  return chain;
}

/**
 * The problems of a set of locales, as messages (empty when it is valid): exactly one default,
 * the default enabled, fallbacks naming an existing other locale, and no fallback cycle.
 */
export function localeSetProblems(locales: readonly LocaleLike[]): string[] {
  if (locales.length === 0) return [];
  const problems: string[] = [];
  const defaults = locales.filter((locale) => locale.default === true);
  if (defaults.length === 0) problems.push('one locale must be the default (`default: true`)');
  if (defaults.length > 1) {
    problems.push(`only one locale may be the default; ${defaults.map((l) => l.code).join(', ')} are`);
  }
  for (const locale of defaults) {
    if (locale.enabled === false) problems.push(`the default locale ${locale.code} cannot be disabled`);
  }
  const codes = new Set(locales.map((locale) => locale.code));
  for (const locale of locales) {
    if (!locale.fallback) continue;
    if (locale.fallback === locale.code) problems.push(`${locale.code} cannot fall back to itself`);
    else if (!codes.has(locale.fallback)) {
      problems.push(`${locale.code} falls back to ${locale.fallback}, which is not a locale of the site`);
    }
  }
  const fallbackOf = new Map(locales.map((locale) => [locale.code, locale.fallback ?? null]));
  for (const locale of locales) {
    const seen = new Set<string>();
    let current: string | null = locale.code;
    while (current && !seen.has(current)) {
      seen.add(current);
      current = fallbackOf.get(current) ?? null;
    }
    if (current === locale.code) {
      problems.push(
        `the fallbacks of ${locale.code} form a cycle (${[...seen].join(' → ')} → ${locale.code})`,
      );
    }
  }
  return problems;
}

/**
 * An item's fields in a locale: each `translatable` field takes the first value found along
 * the locale's chain ({@link localeChain}); the default locale's value is the item's own
 * field. Other fields are the item's own. Returns `fields` itself when nothing differs.
 */
export function localizedFields(params: {
  fields: Record<string, unknown>;
  translations: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined;
  translatable: readonly string[];
  chain: readonly string[];
  defaultCode: string | null;
}): Record<string, unknown> {
  const { fields, translations, translatable, chain, defaultCode } = params;
  if (!translations || translatable.length === 0) return fields;
  let out: Record<string, unknown> | null = null;
  for (const name of translatable) {
    for (const code of chain) {
      if (code === defaultCode) break;
      const value = translations[code]?.[name];
      if (value === undefined || value === null || value === '') continue;
      out ??= { ...fields };
      out[name] = value;
      break;
    }
  }
  return out ?? fields;
}

/** A UI string in a locale: the first entry found along its chain, else null. */
export function translateKey(
  key: string,
  chain: readonly string[],
  entries: ReadonlyMap<string, Readonly<Record<string, string>>>,
): string | null {
  for (const code of chain) {
    const text = entries.get(code)?.[key];
    if (typeof text === 'string') return text;
  }
  return null;
}
