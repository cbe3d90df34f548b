import { absoluteUrl } from '../liquid/filters';

/** One URL of the sitemap. */
export interface SitemapEntry {
  path: string;
  /** ISO date-time; written as its date */
  lastmod?: string | null;
  /** the URL to list instead of the page's (a view's canonical URL) */
  loc?: string;
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!,
  );
}

/** `sitemap.xml` for the given pages (sorted by path), URLs absolute when the site has a public URL. */
export function renderSitemap(params: {
  entries: readonly SitemapEntry[];
  publicUrl: string | null;
}): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
  ];
  const sorted = [...params.entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // All paths share one prefix: resolve it once ('/' → the absolute root URL without its trailing slash).
  const root = absoluteUrl('/', { publicUrl: params.publicUrl }).replace(/\/$/, '');
  for (const entry of sorted) {
    const loc = escapeXml(entry.loc ?? `${root}${entry.path}`);
    const date =
      entry.lastmod && /^\d{4}-\d{2}-\d{2}/.test(entry.lastmod) ? entry.lastmod.slice(0, 10) : null;
    lines.push(
      date ? `  <url><loc>${loc}</loc><lastmod>${date}</lastmod></url>` : `  <url><loc>${loc}</loc></url>`,
    );
  }
  lines.push('</urlset>', '');
  return lines.join('\n');
}
