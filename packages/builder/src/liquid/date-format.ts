/**
 * A faster `date` for the common case, giving liquidjs's bytes: an ISO-8601 UTC date string
 * (`2026-03-02T23:30:00Z`, milliseconds optional) printed in UTC with a format made only of
 * `%Y %m %d %e %H %M %S %y %B %b %A %a %%` (each optionally with the `-` flag: no padding)
 * and plain text. liquidjs's `date` parses the format with a regular expression per directive,
 * builds a flags object and a `LiquidDate` (two `Date`s) per call; here the format is compiled
 * once and the fields come from one `Date`'s UTC getters. Anything else — another directive, a
 * flag other than `-`, a width, another input form, a process time zone whose offset is not 0
 * at that instant (liquidjs reads local fields of a shifted date there) — gives `undefined`, and
 * the caller uses liquidjs's filter. The memory limit is charged as liquidjs charges it.
 */

/** liquidjs's directive pattern (strftime in liquid.node.js), to split a format the same way. */
const DIRECTIVE = /%([-_0^#:]+)?(\d+)?([EO])?(.)/;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** liquidjs's default widths of the directives handled here (zero-padded except `e`, `B`…). */
const WIDTHS: Record<string, number> = { Y: 4, m: 2, d: 2, e: 2, H: 2, M: 2, S: 2, y: 2 };
const NAMES: Record<string, Intl.DateTimeFormatOptions> = {
  B: { month: 'long' },
  b: { month: 'short' },
  A: { weekday: 'long' },
  a: { weekday: 'short' },
};
const SPACE_PADDED = new Set(['e', 'B', 'b', 'A', 'a']);

interface Directive {
  conversion: string;
  width: number;
  padChar: string;
}
type Part = string | Directive;

export interface DateFormatEnv {
  /** the Liquid environment's `locale` (liquidjs fills it in when not given) */
  locale: string;
  /** `Intl.DateTimeFormat` as liquidjs's filter would call it (the shared formatters) */
  dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat;
  memoryLimit?: { use(count: number): void };
}

const compiled = new Map<string, Part[] | null>();

/** The format split as liquidjs splits it, or null when it uses what {@link fastDate} leaves out. */
export function compileDateFormat(format: string): Part[] | null {
  const known = compiled.get(format);
  if (known !== undefined) return known;
  const parts: Part[] = [];
  let remaining = format;
  let ok = true;
  for (let match = DIRECTIVE.exec(remaining); match; match = DIRECTIVE.exec(remaining)) {
    if (match.index > 0) parts.push(remaining.slice(0, match.index));
    remaining = remaining.slice(match.index + match[0].length);
    const [, flags = '', width, modifier, conversion = ''] = match;
    if (width !== undefined || modifier !== undefined || (flags !== '' && flags !== '-')) {
      ok = false;
      break;
    }
    if (conversion === '%') {
      parts.push('%');
      continue;
    }
    if (!(conversion in WIDTHS) && !(conversion in NAMES)) {
      ok = false;
      break;
    }
    parts.push({
      conversion,
      width: flags === '-' ? 0 : (WIDTHS[conversion] ?? 0),
      padChar: SPACE_PADDED.has(conversion) ? ' ' : '0',
    });
  }
  if (ok && remaining !== '') parts.push(remaining);
  const result = ok ? parts : null;
  if (compiled.size >= 1000) compiled.clear();
  compiled.set(format, result);
  return result;
}

function field(date: Date, conversion: string, env: DateFormatEnv): string {
  switch (conversion) {
    case 'Y':
      return String(date.getUTCFullYear());
    case 'm':
      return String(date.getUTCMonth() + 1);
    case 'd':
    case 'e':
      return String(date.getUTCDate());
    case 'H':
      return String(date.getUTCHours());
    case 'M':
      return String(date.getUTCMinutes());
    case 'S':
      return String(date.getUTCSeconds());
    case 'y':
      return String(((date.getUTCFullYear() % 100) + 100) % 100);
    default:
      return nameOf(date, conversion, env);
  }
}

/**
 * Month and weekday names printed before, per locale and directive, by month (0–11) or weekday
 * (0–6); null for month names of a locale whose calendar is not the Gregorian one (its months
 * are not the UTC month). A name depends on the locale and that index alone (the date's local
 * time is its UTC time here: {@link fastDate} checks the offset), so each is asked of `Intl`
 * once, not at every date.
 */
const names = new Map<string, Map<string, Array<string | undefined> | null>>();

function nameOf(date: Date, conversion: string, env: DateFormatEnv): string {
  const options = NAMES[conversion] as Intl.DateTimeFormatOptions;
  let byConversion = names.get(env.locale);
  if (byConversion === undefined) {
    if (names.size >= 100) names.clear();
    byConversion = new Map();
    names.set(env.locale, byConversion);
  }
  const weekday = conversion === 'A' || conversion === 'a';
  let table = byConversion.get(conversion);
  if (table === undefined) {
    const calendar = env.dateTimeFormat(env.locale, options).resolvedOptions().calendar;
    table = weekday || calendar === 'gregory' ? [] : null;
    byConversion.set(conversion, table);
  }
  if (table === null) return env.dateTimeFormat(env.locale, options).format(date);
  const index = weekday ? date.getUTCDay() : date.getUTCMonth();
  let name = table[index];
  if (name === undefined) {
    name = env.dateTimeFormat(env.locale, options).format(date);
    table[index] = name;
  }
  return name;
}

/**
 * `{{ value | date: format }}` in an environment printing dates in UTC (`timezoneOffset: 0`),
 * or `undefined` when this case is not one it handles.
 */
export function fastDate(value: string, format: string, env: DateFormatEnv): string | undefined {
  if (!ISO_UTC.test(value)) return undefined;
  const parts = compileDateFormat(format);
  if (parts === null) return undefined;
  const date = new Date(value);
  const time = date.getTime();
  if (Number.isNaN(time) || date.getTimezoneOffset() !== 0) return undefined;
  const limit = env.memoryLimit;
  limit?.use(value.length);
  limit?.use(format.length);
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const text = field(date, part.conversion, env);
    limit?.use(part.width - text.length);
    out += text.length < part.width ? text.padStart(part.width, part.padChar) : text;
  }
  return out;
}
