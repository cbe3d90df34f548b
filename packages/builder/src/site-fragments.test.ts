import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { hashedBagOfWords } from '@trelliscms/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, loadFixture } from '../test/load-fixture';
import { BuildCache } from './incremental/build-cache';

// Widgets, page kits, view SEO, output channels and the vector search index in a build.

const open: Fixture[] = [];
afterEach(() => {
  for (const fixture of open.splice(0)) fixture.cleanup();
});

function site(options: { cache?: boolean } = {}): Fixture {
  const fixture = loadFixture('blog');
  open.push(fixture);
  if (options.cache) {
    const cache = new BuildCache();
    const plain = fixture.build;
    fixture.build = (buildOptions = {}) => plain({ cache, ...buildOptions });
  }
  return fixture;
}

function liveFiles(fixture: Fixture): Map<string, string> {
  const root = join(fixture.root, 'site', 'current');
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  walk(root);
  return out;
}

/** Builds `fixture` incrementally and checks it holds exactly the files of a full build of the same snapshot. */
async function incrementalMatchesFull(fixture: Fixture) {
  const result = await fixture.build({ mode: 'incremental' });
  expect(result.ok, JSON.stringify(result.errors)).toBe(true);
  expect(result.effectiveMode).toBe('incremental');
  const reference = site();
  reference.snapshot = structuredClone(fixture.snapshot);
  expect((await reference.build({ mode: 'full' })).ok).toBe(true);
  expect(liveFiles(fixture)).toEqual(liveFiles(reference));
  return result;
}

function withWidgets(fixture: Fixture): void {
  const layout = fixture.snapshot.templates.find((t) => t.name === '_layout')!;
  layout.content = layout.content.replace(
    '<main>',
    '<div id="sidebar">{{ widgets.sidebar }}</div>{% if widgets.footer != blank %}<footer>{{ widgets.footer }}</footer>{% endif %}<main>',
  );
  fixture.snapshot.widgets = [
    {
      name: 'newsletter',
      area: 'sidebar',
      order: 2,
      template: '<aside class="newsletter">{{ widget.settings.heading }} ({{ page.title }})</aside>',
      settings: { heading: 'Join <us>' },
    },
    {
      name: 'latest',
      area: 'sidebar',
      order: 1,
      template:
        "{% list 'post' sort: '-date', limit: 1 as newest %}<aside class=\"latest\">{{ newest[0].title }}</aside>",
    },
    { name: 'hidden', area: 'sidebar', enabled: false, template: '<aside class="hidden"></aside>' },
  ];
}

describe('widgets', () => {
  it('render in the named areas of a page, in order, with their settings and the page in scope', async () => {
    const fixture = site();
    withWidgets(fixture);
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok, JSON.stringify(result.errors)).toBe(true);
    const page = await fixture.readFile('/blog/hello-world/');
    expect(page).toContain(
      '<div id="sidebar"><aside class="latest">Static Speed</aside>\n<aside class="newsletter">Join &lt;us&gt; (Hello World)</aside></div>',
    );
    expect(page).not.toContain('class="hidden"');
    // an area without widgets is blank
    expect(page).not.toContain('<footer>');
  });

  it('are build dependencies: an incremental build re-renders the pages showing an area, exactly', async () => {
    const fixture = site({ cache: true });
    withWidgets(fixture);
    expect((await fixture.build({ mode: 'full' })).ok).toBe(true);
    expect((await fixture.build({ mode: 'incremental' })).rendered).toBe(0);

    fixture.snapshot.widgets![0]!.settings = { heading: 'Subscribe' };
    const changed = await incrementalMatchesFull(fixture);
    expect(changed.rendered).toBeGreaterThan(0);
    expect(await fixture.readFile('/blog/hello-world/')).toContain('Subscribe (Hello World)');

    // a widget added to an area pages read while it was empty
    fixture.snapshot.widgets!.push({ name: 'legal', area: 'footer', template: '<p>© {{ site.name }}</p>' });
    await incrementalMatchesFull(fixture);
    expect(await fixture.readFile('/')).toContain('<footer><p>© Fixture Blog</p></footer>');

    // what a widget lists is recorded too
    const post = fixture.snapshot.items.find((i) => i.id === 'post:static-speed')!;
    post.fields = { ...post.fields, title: 'Static, Speedier' };
    await incrementalMatchesFull(fixture);
    expect(await fixture.readFile('/blog/hello-world/')).toContain(
      '<aside class="latest">Static, Speedier</aside>',
    );

    fixture.snapshot.widgets = [];
    await incrementalMatchesFull(fixture);
    expect(await fixture.readFile('/blog/hello-world/')).toContain('<div id="sidebar"></div>');
  });

  it('fail the page, naming the widget, when a widget template fails', async () => {
    const fixture = site();
    withWidgets(fixture);
    fixture.snapshot.widgets![0]!.template = '{{ widget.settings.heading | nosuchfilter }}';
    const result = await fixture.build({ mode: 'validate', workers: 0 });
    expect(result.ok).toBe(false);
    expect(result.errors[0]!.message).toContain('widget "newsletter" (area sidebar)');
  });
});

describe('page kits', () => {
  it('render from a template with {% pagekit %}, slots escaped, and are dependencies of the pages using them', async () => {
    const fixture = site({ cache: true });
    fixture.snapshot.pageKits = [
      {
        id: 'cta',
        name: 'Call to action',
        template:
          '<section class="cta"><h2>{{ slots.title }}</h2><p>{{ slots.body }}</p>{{ site.name }}</section>',
        slots: ['title', 'body'],
      },
    ];
    const home = fixture.snapshot.templates.find((t) => t.name === 'home')!;
    home.content = home.content.replace(
      '{% endblock %}',
      '{% pagekit "cta" title: "Join <now>", body: page.title %}{% endblock %}',
    );
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok, JSON.stringify(result.errors)).toBe(true);
    expect(await fixture.readFile('/')).toContain(
      '<section class="cta"><h2>Join &lt;now&gt;</h2><p>Home</p>Fixture Blog</section>',
    );
    fixture.snapshot.pageKits[0]!.template = '<section class="cta v2">{{ slots.title }}</section>';
    const changed = await incrementalMatchesFull(fixture);
    expect(changed.renderedKeys).toEqual(['route:/#1']);
    expect(await fixture.readFile('/')).toContain('<section class="cta v2">Join &lt;now&gt;</section>');

    home.content = home.content.replace('"cta"', '"missing"');
    const failed = await fixture.build({ mode: 'validate', workers: 0 });
    expect(failed.errors[0]!.message).toContain('page kit "missing" does not exist or has no template');
  });
});

describe('views', () => {
  it('put their SEO settings in the page head and the sitemap', async () => {
    const fixture = site();
    fixture.snapshot.views = [
      {
        name: 'archive',
        path: '/archive/',
        template: 'blog-index',
        title: 'Archive',
        paginate: { type: 'post', size: 2 },
        seo: {
          title: 'The Archive',
          description: 'Every post, "oldest" first',
          canonicalUrl: 'https://canonical.example.org/archive/',
          ogImage: '/media/archive.png',
          keywords: ['posts', 'archive'],
        },
      },
      {
        name: 'drafts',
        path: '/drafts/',
        template: 'blog-index',
        paginate: { type: 'post', size: 10 },
        seo: { title: 'Drafts', noindex: true },
      },
    ];
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok, JSON.stringify(result.errors)).toBe(true);
    const archive = await fixture.readFile('/archive/');
    const head = archive.slice(0, archive.indexOf('</head>'));
    // the layout's own title uses page.title, which is the SEO title
    expect(head).toContain('<title>The Archive · Fixture Blog</title>');
    expect(head.match(/<title>/g)).toHaveLength(1);
    expect(head).toContain('<meta name="description" content="Every post, &#34;oldest&#34; first">');
    expect(head).toContain('<meta name="keywords" content="posts, archive">');
    expect(head).toContain('<link rel="canonical" href="https://canonical.example.org/archive/">');
    expect(head).toContain('<meta property="og:title" content="The Archive">');
    expect(head).toContain('<meta property="og:image" content="https://blog.example.org/media/archive.png">');
    expect(head).toContain('<meta property="og:url" content="https://canonical.example.org/archive/">');
    // page 2 is canonical at its own URL
    expect(await fixture.readFile('/archive/page/2/')).toContain(
      '<link rel="canonical" href="https://blog.example.org/archive/page/2/">',
    );
    expect(await fixture.readFile('/drafts/')).toContain('<meta name="robots" content="noindex">');
    const sitemap = await fixture.readFile('sitemap.xml');
    expect(sitemap).toContain('<loc>https://canonical.example.org/archive/</loc>');
    expect(sitemap).toContain('<loc>https://blog.example.org/archive/page/2/</loc>');
    expect(sitemap).not.toContain('/drafts/');
    expect(sitemap).toContain('<loc>https://blog.example.org/blog/hello-world/</loc>');
  });
});

describe('output channels', () => {
  it('select what a build emits: no sitemap without `sitemap`, no pages without `pages`', async () => {
    const fixture = site({ cache: true });
    fixture.snapshot.routes!.push({ slug: 'feed', path: '/feed.xml', template: 'feed' });
    fixture.snapshot.templates.push({
      name: 'feed',
      content:
        "<?xml version=\"1.0\"?><rss><channel>{% list 'post' sort: '-date', limit: 2 as posts %}{% for p in posts %}<item>{{ p.title }}</item>{% endfor %}</channel></rss>",
    });
    const pagesOnly = await fixture.build({ mode: 'full', outputChannels: ['pages', 'search'] });
    expect(pagesOnly.ok, JSON.stringify(pagesOnly.errors)).toBe(true);
    expect(fixture.pathExists('sitemap.xml')).toBe(false);
    expect(fixture.pathExists('/blog/hello-world/')).toBe(true);
    expect(fixture.pathExists('search/manifest.json')).toBe(true);
    expect(fixture.pathExists('feed.xml')).toBe(false);

    const feedsAndSitemap = await fixture.build({
      mode: 'incremental',
      outputChannels: ['feeds', 'sitemap'],
    });
    expect(feedsAndSitemap.ok).toBe(true);
    expect(fixture.pathExists('/blog/hello-world/')).toBe(false);
    expect(fixture.pathExists('search/manifest.json')).toBe(false);
    expect(await fixture.readFile('feed.xml')).toContain('<item>Static Speed</item>');
    // the sitemap lists the pages of the version (none here), never feeds
    const sitemap = await fixture.readFile('sitemap.xml');
    expect(sitemap).not.toContain('/blog/hello-world/');
    expect(sitemap).not.toContain('feed.xml');

    // back to every channel: the pages return
    const all = await fixture.build({ mode: 'incremental' });
    expect(all.ok).toBe(true);
    expect(fixture.pathExists('/blog/hello-world/')).toBe(true);
    expect(fixture.pathExists('sitemap.xml')).toBe(true);
    expect(fixture.pathExists('feed.xml')).toBe(true);
    expect(await fixture.readFile('sitemap.xml')).toContain('/blog/hello-world/');
  });
});

describe('vector search index', () => {
  it('holds each page’s embedding and follows embedding changes in incremental builds', async () => {
    const fixture = site({ cache: true });
    fixture.snapshot.site.searchEmission = 'bm25+vector';
    fixture.snapshot.embeddings = { provider: 'hashed-bow', dimensions: 256 };
    for (const item of fixture.snapshot.items) {
      item.embedding = hashedBagOfWords(`${item.fields.title ?? ''} ${item.fields.body ?? ''}`);
    }
    expect((await fixture.build({ mode: 'full' })).ok).toBe(true);
    const manifest = JSON.parse(await fixture.readFile('search/manifest.json'));
    expect(manifest.vectors).toEqual(['vectors-0.json']);
    expect(manifest.embedding).toEqual({ provider: 'hashed-bow', dimensions: 256 });
    const vectors = JSON.parse(await fixture.readFile('search/vectors-0.json'));
    expect(Object.keys(vectors)).toContain('post:hello-world');
    expect(vectors['post:hello-world']).toHaveLength(256);

    // only the embedding changes (e.g. materialized with another provider)
    const item = fixture.snapshot.items.find((i) => i.id === 'post:hello-world')!;
    item.embedding = hashedBagOfWords('something else entirely');
    await incrementalMatchesFull(fixture);
    const after = JSON.parse(await fixture.readFile('search/vectors-0.json'));
    expect(after['post:hello-world']).not.toEqual(vectors['post:hello-world']);
  });
});
