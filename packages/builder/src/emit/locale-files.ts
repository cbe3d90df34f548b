import { absoluteUrl, relativeUrl } from '../liquid/filters';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import type { SiteLocales } from '../plan/site-locales';
import type { Snapshot } from '../snapshot/types';
import type { SnapshotSource } from '../source/snapshot-source';
import { miniSearchBrowserBuild, SEARCH_SCRIPT } from './search-client';
import { buildShardIndex, type SearchDoc, searchDoc, searchManifest } from './search-index';

/** A file of a localized site: its manifest key, path and content. */
export interface LocaleFile {
  key: string;
  file: string;
  content: string;
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!,
  );
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

function isPage(a: ArtifactSpec): boolean {
  return a.kind === 'route' ? a.route.kind !== 'redirect' : !a.stub;
}

/** A sitemap of pages with their `hreflang` alternates (`xhtml:link`), URLs absolute with a public URL. */
function localeSitemap(pages: readonly ArtifactSpec[], snapshot: Snapshot, publicUrl: string | null): string {
  const updated = new Map(snapshot.items.map((item) => [item.id, item.updatedAt ?? null]));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
  ];
  for (const page of [...pages].sort(byPath)) {
    const loc = escapeXml(absoluteUrl(page.path, { publicUrl }));
    const lastmod = page.kind === 'item' ? updated.get(page.itemId) : null;
    const date = lastmod && /^\d{4}-\d{2}-\d{2}/.test(lastmod) ? lastmod.slice(0, 10) : null;
    lines.push('  <url>', `    <loc>${loc}</loc>`);
    if (date) lines.push(`    <lastmod>${date}</lastmod>`);
    for (const alt of page.alternates ?? []) {
      const href = escapeXml(absoluteUrl(alt.path, { publicUrl }));
      lines.push(`    <xhtml:link rel="alternate" hreflang="${escapeXml(alt.locale)}" href="${href}"/>`);
    }
    lines.push('  </url>');
  }
  lines.push('</urlset>', '');
  return lines.join('\n');
}

/**
 * The files a localized site gets besides `sitemap.xml` and the site-wide search index:
 * - `sitemaps/<locale>.xml`: the pages of each locale with their `hreflang` alternates,
 *   `sitemaps/shared.xml`: the pages in no particular locale, and `sitemap-index.xml` naming
 *   them all;
 * - with search on, `search/<locale>/`: a search index of the locale's pages (and the pages in
 *   no particular locale) with the items' fields in that locale, in the site-wide index's
 *   format, with its own `search.js` (`<script src="/search/fr/search.js">` searches French).
 * Made whole from the plan each build (the caller carries a file whose bytes did not change).
 */
export function localeExtras(params: {
  snapshot: Snapshot;
  source: SnapshotSource;
  plan: { artifacts: readonly ArtifactSpec[] };
  locales: SiteLocales;
  search: boolean;
}): LocaleFile[] {
  const { snapshot, source, plan, locales } = params;
  const publicUrl = snapshot.site.publicUrl ?? null;
  const files: LocaleFile[] = [];
  const pages = plan.artifacts.filter(isPage);
  const sitemaps: string[] = [];
  const shared = pages.filter((a) => a.locale === undefined);
  for (const code of locales.codes) {
    const file = `sitemaps/${code}.xml`;
    sitemaps.push(file);
    const content = localeSitemap(
      pages.filter((a) => a.locale === code),
      snapshot,
      publicUrl,
    );
    files.push({ key: `file:${file}`, file, content });
  }
  sitemaps.push('sitemaps/shared.xml');
  files.push({
    key: 'file:sitemaps/shared.xml',
    file: 'sitemaps/shared.xml',
    content: localeSitemap(shared, snapshot, publicUrl),
  });
  const index = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...sitemaps.map(
      (file) => `  <sitemap><loc>${escapeXml(absoluteUrl(`/${file}`, { publicUrl }))}</loc></sitemap>`,
    ),
    '</sitemapindex>',
    '',
  ].join('\n');
  files.push({ key: 'file:sitemap-index.xml', file: 'sitemap-index.xml', content: index });

  if (!params.search) return files;
  const types = new Map(snapshot.types.map((type) => [type.name, type]));
  const manifest = searchManifest({ shards: 1, vectors: false });
  const miniSearch = miniSearchBrowserBuild();
  for (const code of locales.codes) {
    const docs: SearchDoc[] = [];
    for (const a of plan.artifacts) {
      if (a.kind !== 'item' || a.stub || (a.locale !== undefined && a.locale !== code)) continue;
      const item = source.item(a.itemId);
      if (!item) continue;
      docs.push(
        searchDoc(locales.localize(item, code), types.get(item.type), relativeUrl(a.path, { publicUrl })),
      );
    }
    docs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const dir = `search/${code}`;
    files.push(
      { key: `file:${dir}/index-0.json`, file: `${dir}/index-0.json`, content: buildShardIndex(docs) },
      { key: `file:${dir}/manifest.json`, file: `${dir}/manifest.json`, content: manifest },
      { key: `file:${dir}/search.js`, file: `${dir}/search.js`, content: SEARCH_SCRIPT },
      { key: `file:${dir}/minisearch.js`, file: `${dir}/minisearch.js`, content: miniSearch },
    );
  }
  return files;
}
