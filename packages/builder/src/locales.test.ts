import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, loadFixture } from '../test/load-fixture';
import { localizeBlog } from '../test/localize-fixture';
import { BuildCache } from './incremental/build-cache';

const open: Fixture[] = [];
afterEach(() => {
  for (const fixture of open.splice(0)) fixture.cleanup();
});

function localizedBlog(): Fixture {
  const fixture = loadFixture('blog');
  open.push(fixture);
  localizeBlog(fixture.snapshot);
  return fixture;
}

const item = (fixture: Fixture, id: string) => fixture.snapshot.items.find((i) => i.id === id)!;

describe('a localized site', () => {
  it('renders a French page with its French fields, UI strings and hreflang links to the other locales', async () => {
    const site = localizedBlog();
    const result = await site.build({ mode: 'full' });
    expect(result.ok, JSON.stringify(result.errors)).toBe(true);

    const fr = await site.readFile('/fr/blog/bonjour-le-monde/');
    expect(fr).toContain('<html lang="fr">');
    expect(fr).toContain('<h1>Bonjour le monde</h1>');
    expect(fr).toContain('<p class="nav">Accueil · Blog</p>');
    expect(fr).toContain(
      '<link rel="alternate" hreflang="en" href="https://blog.example.org/en/blog/hello-world/">',
    );
    expect(fr).toContain(
      '<link rel="alternate" hreflang="fr" href="https://blog.example.org/fr/blog/bonjour-le-monde/">',
    );
    expect(fr).toContain(
      '<link rel="alternate" hreflang="x-default" href="https://blog.example.org/en/blog/hello-world/">',
    );

    const en = await site.readFile('/en/blog/hello-world/');
    expect(en).toContain('<html lang="en">');
    expect(en).toContain('<h1>Hello World</h1>');
    expect(en).toContain('<p class="nav">Home · Blog</p>');
    expect(en).toContain('hreflang="fr" href="https://blog.example.org/fr/blog/bonjour-le-monde/"');
    // a section lives under its page in each locale
    expect(site.pathExists('/fr/about/team/')).toBe(true);
    // the unlocalized page of the type is gone: every post lives under a locale
    expect(site.pathExists('/blog/hello-world/')).toBe(false);
  });

  it('falls back along the chain when a translation is missing', async () => {
    const site = localizedBlog();
    item(site, 'post:liquid-layouts').translations = { fr: { title: 'Mises en page Liquid' } };
    expect((await site.build({ mode: 'full' })).ok).toBe(true);
    // fr-CA has only a body: the title and slug come from French, its fallback
    const caPage = await site.readFile('/fr-CA/blog/bonjour-le-monde/');
    expect(caPage).toContain('<h1>Bonjour le monde</h1>');
    expect(caPage).toContain('Allô, le monde');
    expect(caPage).toContain('<p class="nav">Accueil · Blog</p>');
    // French has no title for this post: the default (English) one, at the English slug
    const untranslated = await site.readFile('/fr/blog/static-speed/');
    expect(untranslated).toContain(`<h1>${item(site, 'post:static-speed').fields.title}</h1>`);
    // a localized listing shows the French titles at the French URLs
    const home = await site.readFile('/fr/');
    expect(home).toContain('<a href="/fr/blog/liquid-layouts/">Mises en page Liquid</a>');
    expect(home).toContain('<a href="/fr/blog/static-speed/">Static Speed</a>');
  });

  it('writes a sitemap per locale with alternates, a sitemap index and a search index per locale', async () => {
    const site = localizedBlog();
    expect((await site.build({ mode: 'full' })).ok).toBe(true);
    const frMap = await site.readFile('sitemaps/fr.xml');
    expect(frMap).toContain('<loc>https://blog.example.org/fr/blog/bonjour-le-monde/</loc>');
    expect(frMap).toContain(
      '<xhtml:link rel="alternate" hreflang="en" href="https://blog.example.org/en/blog/hello-world/"/>',
    );
    expect(frMap).not.toContain('<loc>https://blog.example.org/en/');
    expect(await site.readFile('sitemaps/shared.xml')).toContain(
      '<loc>https://blog.example.org/tags/graphs/</loc>',
    );
    const index = await site.readFile('sitemap-index.xml');
    for (const file of ['sitemaps/en.xml', 'sitemaps/fr.xml', 'sitemaps/fr-CA.xml', 'sitemaps/shared.xml']) {
      expect(index).toContain(`<loc>https://blog.example.org/${file}</loc>`);
    }
    // the site-wide sitemap still lists every page
    expect(await site.readFile('sitemap.xml')).toContain(
      'https://blog.example.org/fr/blog/bonjour-le-monde/',
    );

    const frIndex = JSON.parse(await site.readFile('search/fr/index-0.json'));
    const stored = Object.values(frIndex.storedFields as Record<string, { title: string; url: string }>);
    expect(stored).toContainEqual(
      expect.objectContaining({ title: 'Bonjour le monde', url: '/fr/blog/bonjour-le-monde/' }),
    );
    expect(site.pathExists('search/fr/search.js')).toBe(true);
    expect(JSON.parse(await site.readFile('search/fr/manifest.json')).shards).toEqual(['index-0.json']);
    // the site-wide index holds each post once, at its default locale's page
    const manifest = JSON.parse(await site.readFile('search/manifest.json'));
    const urls: string[] = [];
    for (const shard of manifest.shards as string[]) {
      const shardIndex = JSON.parse(await site.readFile(`search/${shard}`));
      for (const doc of Object.values(shardIndex.storedFields as Record<string, { url: string }>))
        urls.push(doc.url);
    }
    expect(urls).toContain('/en/blog/hello-world/');
    expect(urls.some((url) => url.startsWith('/fr'))).toBe(false);
  });

  it('re-renders only the pages that read a changed translation', async () => {
    for (const cache of [null, new BuildCache()]) {
      const site = localizedBlog();
      const build = (mode: 'full' | 'incremental') => site.build({ mode, ...(cache ? { cache } : {}) });
      expect((await build('full')).ok).toBe(true);

      const post = item(site, 'post:graph-gardening');
      post.translations = { fr: { title: 'Jardins de graphes' } };
      const changed = await build('incremental');
      expect(changed.ok).toBe(true);
      expect(changed.effectiveMode).toBe('incremental');
      expect(changed.renderedKeys).toContain('item:post:graph-gardening@fr');
      expect(changed.renderedKeys).not.toContain('item:post:hello-world@fr');
      expect(await site.readFile('/fr/blog/graph-gardening/')).toContain('<h1>Jardins de graphes</h1>');

      // a UI string: the pages that show it in French (and in Canadian French, which falls back to it)
      site.snapshot.translations = [
        { locale: 'en', entries: { 'nav.home': 'Home', 'nav.blog': 'Blog' } },
        { locale: 'fr', entries: { 'nav.home': 'Accueil', 'nav.blog': 'Le blog' } },
      ];
      const strings = await build('incremental');
      expect(strings.ok).toBe(true);
      expect(strings.renderedKeys).toContain('item:post:hello-world@fr');
      expect(strings.renderedKeys).toContain('item:post:hello-world@fr-CA');
      expect(strings.renderedKeys).not.toContain('item:post:hello-world@en');
      expect(await site.readFile('/fr-CA/blog/bonjour-le-monde/')).toContain(
        '<p class="nav">Accueil · Le blog</p>',
      );
    }
  });
});
