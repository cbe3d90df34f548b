import type { Context, Emitter, Liquid, TagToken, TopLevelToken } from 'liquidjs';
import { Tag } from 'liquidjs';
import type { ReaderSlot } from './tags';

/** One alternate of a page as templates see it (`page.alternates`). */
export interface PageAlternate {
  locale: string;
  /** the page's path in that locale, e.g. `/fr/posts/bonjour/` */
  url: string;
  /** its absolute URL when the site has a public URL, else the path */
  href: string;
  /** whether it is the page being rendered */
  current: boolean;
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The `<link rel="alternate" hreflang>` tags of a page: one per locale it exists in, and
 * `x-default` for the default locale's version. Empty for a page in one language.
 */
export function hreflangLinks(alternates: readonly PageAlternate[], defaultLocale: string | null): string {
  if (alternates.length < 2) return '';
  const links = alternates.map(
    (alt) =>
      `<link rel="alternate" hreflang="${escapeAttribute(alt.locale)}" href="${escapeAttribute(alt.href)}">`,
  );
  const fallback = alternates.find((alt) => alt.locale === defaultLocale);
  if (fallback)
    links.push(`<link rel="alternate" hreflang="x-default" href="${escapeAttribute(fallback.href)}">`);
  return links.join('\n');
}

/**
 * Registers the locale helpers:
 * - the `t` filter: `{{ 'nav.home' | t }}` is the UI string `nav.home` in the page's locale
 *   (`{{ 'nav.home' | t: 'fr' }}` in another), falling back along the locale's chain to the
 *   default locale, else the key itself; the page records the strings as a dependency;
 * - `{% hreflang %}`: the page's `<link rel="alternate" hreflang="…">` tags (for `<head>`).
 */
export function registerLocaleHelpers(liquid: Liquid, slot: ReaderSlot): void {
  liquid.registerFilter('t', (key: unknown, locale?: unknown) => {
    const text = String(key ?? '');
    const reader = slot.reader;
    if (!reader) return text;
    return reader.translate(text, typeof locale === 'string' && locale !== '' ? locale : null) ?? text;
  });
  liquid.registerTag(
    'hreflang',
    class HreflangTag extends Tag {
      constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
        super(token, remain, engine);
      }
      render(ctx: Context, emitter: Emitter): void {
        const page = ctx.getSync(['page']) as { alternates?: PageAlternate[] } | undefined;
        const alternates = Array.isArray(page?.alternates) ? page.alternates : [];
        emitter.write(hreflangLinks(alternates, slot.reader?.locales.defaultCode ?? null));
      }
    },
  );
}
