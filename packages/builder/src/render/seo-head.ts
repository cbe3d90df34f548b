import { absoluteUrl } from '../liquid/filters';
import type { SnapshotView } from '../snapshot/types';

/** A view page's SEO settings as its template sees them (`page.seo`) and its `<head>` gets them. */
export interface PageSeo {
  title: string | null;
  description: string | null;
  /** absolute: the view's `canonicalUrl` on its first page, else the page's own URL (with a public URL) */
  canonicalUrl: string | null;
  ogImage: string | null;
  keywords: string[];
  noindex: boolean;
}

/** The SEO of a view's page, or null for a page without SEO settings (routes, views without `seo`). */
export function viewSeo(
  view: SnapshotView,
  spec: { path: string; page: number },
  publicUrl: string | null,
): PageSeo | null {
  const seo = view.seo;
  if (!seo) return null;
  const own = publicUrl ? absoluteUrl(spec.path, { publicUrl }) : null;
  const image = seo.ogImage ? (publicUrl ? absoluteUrl(seo.ogImage, { publicUrl }) : seo.ogImage) : null;
  return {
    title: seo.title ?? view.title ?? null,
    description: seo.description ?? null,
    canonicalUrl: spec.page === 1 ? (seo.canonicalUrl ?? own) : own,
    ogImage: image,
    keywords: seo.keywords ?? [],
    noindex: seo.noindex === true,
  };
}

function attr(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Adds what a page's `<head>` lacks of its SEO settings before `</head>`: `<title>`, the
 * description, keywords and robots meta tags, the canonical link and the Open Graph tags
 * (`og:title`, `og:description`, `og:image`, `og:url`, `og:type`). What the template wrote
 * itself stays as it is; a page without `</head>` is left alone.
 */
export function seoHead(html: string, seo: PageSeo): string {
  const end = html.search(/<\/head\s*>/i);
  if (end < 0) return html;
  const head = html.slice(0, end);
  const has = (pattern: RegExp) => pattern.test(head);
  const tags: string[] = [];
  const meta = (name: string, content: string) => {
    if (!has(new RegExp(`<meta[^>]+name=["']?${name}["'\\s>]`, 'i')))
      tags.push(`<meta name="${name}" content="${attr(content)}">`);
  };
  const og = (property: string, content: string) => {
    if (!has(new RegExp(`<meta[^>]+property=["']?og:${property}["'\\s>]`, 'i')))
      tags.push(`<meta property="og:${property}" content="${attr(content)}">`);
  };
  if (seo.title && !has(/<title[\s>]/i)) tags.push(`<title>${attr(seo.title)}</title>`);
  if (seo.description) meta('description', seo.description);
  if (seo.keywords.length > 0) meta('keywords', seo.keywords.join(', '));
  if (seo.noindex) meta('robots', 'noindex');
  if (seo.canonicalUrl && !has(/<link[^>]+rel=["']?canonical["'\s>]/i))
    tags.push(`<link rel="canonical" href="${attr(seo.canonicalUrl)}">`);
  if (seo.title) og('title', seo.title);
  if (seo.description) og('description', seo.description);
  if (seo.ogImage) og('image', seo.ogImage);
  if (seo.canonicalUrl) og('url', seo.canonicalUrl);
  if (seo.title || seo.description) og('type', 'website');
  if (tags.length === 0) return html;
  return `${head}${tags.join('')}${html.slice(end)}`;
}
