import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addAuthoring } from '../test/authoring-site';
import { type Fixture, loadFixture } from '../test/load-fixture';
import { localizeBlog } from '../test/localize-fixture';
import { createDirectoryTarget } from './deploy/directory-target';
import { BuildCache } from './incremental/build-cache';
import { RenderPool } from './render/render-pool';

const open: Fixture[] = [];
afterEach(() => {
  for (const fixture of open.splice(0)) fixture.cleanup();
});

/** A fixture site; with `cache`, its builds keep a {@link BuildCache} between them (as a warm pool's builds do). */
function siteOf(name: string, options: { cache?: boolean } = {}): Fixture {
  const fixture = loadFixture(name);
  open.push(fixture);
  if (options.cache) {
    const cache = new BuildCache();
    const plain = fixture.build;
    fixture.build = (buildOptions = {}) => plain({ cache, ...buildOptions });
  }
  return fixture;
}

function fixtureOf(name: string): Fixture {
  return siteOf(name);
}

/** Every file of the live version, path → content. */
/** Removes the site's transforms (lockstep's `grow`). */
function noTransforms(snapshot: Fixture['snapshot']): void {
  snapshot.transforms = [];
}

/** Adds 260 tagged posts, enough for several search shards (lockstep's `grow`). */
function addGeneratedPosts(snapshot: Fixture['snapshot']): void {
  for (let n = 0; n < 260; n++) {
    snapshot.items.push({
      id: `post:gen-${n}`,
      type: 'post',
      fields: {
        title: `Generated ${n}`,
        date: `2025-01-${String((n % 28) + 1).padStart(2, '0')}`,
        body: `Word${n}`,
      },
    });
    snapshot.edges.push({ from: `post:gen-${n}`, edge: 'TAGGED', to: n % 2 ? 'tag:web' : 'tag:graphs' });
  }
}

/**
 * Adds a saved query (the posts of a tag, found from the tag along TAGGED edges) and runs it on
 * the home page with `{% query %}` (lockstep's `grow`).
 */
function addSavedQuery(snapshot: Fixture['snapshot']): void {
  snapshot.queries = [
    {
      name: 'posts-of-tag',
      query: {
        type: 'tag',
        where: 'slug == $tag',
        follow: [{ edge: 'TAGGED', direction: 'in', type: 'post', sort: '-date' }],
        select: ['title', 'date'],
      },
      params: { tag: { type: 'string', required: true } },
    },
  ];
  const home = snapshot.templates.find((t) => t.name === 'home')!;
  home.content = home.content.replace(
    '{% endblock %}',
    '{% query \'posts-of-tag\' tag: \'web\' as web %}<ol class="web">{% for p in web %}<li><a href="{{ p.url }}">{{ p.title }}</a> {{ p.date }}</li>{% endfor %}</ol><p class="web-total">{{ web_total }}</p>{% endblock %}',
  );
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

function edit(fixture: Fixture) {
  const post = fixture.snapshot.items.find((i) => i.id === 'post:graph-gardening')!;
  post.fields = { ...post.fields, title: 'Graph Gardening, Revised' };
  post.updatedAt = '2026-02-12T10:00:00Z';
}

describe.each([
  { variant: 'comparing every page', cache: false },
  { variant: 'with a build cache', cache: true },
])('incremental builds ($variant)', ({ cache }) => {
  const fixtureOf = (name: string) => siteOf(name, { cache });

  it('re-render only the pages that read the edited item and yield exactly the files of a full build', async () => {
    const fixture = fixtureOf('blog');
    const first = await fixture.build({ mode: 'full' });
    expect(first.ok).toBe(true);

    edit(fixture);
    const incremental = await fixture.build({ mode: 'incremental' });
    expect(incremental.ok).toBe(true);
    expect(incremental.effectiveMode).toBe('incremental');
    // its page, the tag page listing it, the blog listing page holding it; the home page
    // shows the 3 latest posts, which do not include it
    expect(incremental.renderedKeys.sort()).toEqual([
      'item:post:graph-gardening',
      'item:tag:graphs',
      'route:/blog/#2',
    ]);
    expect(incremental.carried).toBe(first.rendered - 3);
    expect(incremental.deploy).toMatchObject({ ok: true, filesDeleted: 0 });
    // 3 pages, sitemap (lastmod), search shard
    expect(incremental.deploy!.filesUploaded).toBe(5);

    const full = fixtureOf('blog');
    edit(full);
    const reference = await full.build({ mode: 'full' });
    expect(reference.ok).toBe(true);
    expect(liveFiles(fixture)).toEqual(liveFiles(full));
  });

  it('re-render listings when an item is added, and remove the page of a deleted item', async () => {
    const fixture = fixtureOf('blog');
    await fixture.build({ mode: 'full' });
    fixture.snapshot.items = fixture.snapshot.items.filter((i) => i.id !== 'post:hello-world');
    fixture.snapshot.items.push({
      id: 'post:brand-new',
      type: 'post',
      fields: { title: 'Brand New', date: '2026-05-01', body: 'Fresh.' },
      publishedEnvs: ['prod'],
    });
    const result = await fixture.build({ mode: 'incremental' });
    expect(result.effectiveMode).toBe('incremental');
    expect(result.renderedKeys).toContain('item:post:brand-new');
    expect(result.renderedKeys).toContain('route:/#1');
    expect(result.renderedKeys).not.toContain('item:post:static-speed');
    expect(fixture.pathExists('/blog/hello-world/')).toBe(false);
    expect(result.deploy!.filesDeleted).toBe(1);

    const full = fixtureOf('blog');
    full.snapshot = structuredClone(fixture.snapshot);
    await full.build({ mode: 'full' });
    expect(liveFiles(fixture)).toEqual(liveFiles(full));
  });

  it('re-render pages of a changed partial only', async () => {
    const fixture = fixtureOf('blog');
    const first = await fixture.build({ mode: 'full' });
    fixture.snapshot.templates.find((t) => t.name === '_post-card')!.content =
      '<li class="card">{{ post.title }}</li>';
    const result = await fixture.build({ mode: 'incremental' });
    const expected = first.renderedKeys.filter((k) => k.startsWith('route:') || k.startsWith('item:tag:'));
    expect(result.renderedKeys.sort()).toEqual(expected.sort());
  });

  it('fall back to a full build when types change, and auto picks full for a large change', async () => {
    const fixture = fixtureOf('blog');
    const first = await fixture.build({ mode: 'full' });
    fixture.snapshot.types.find((t) => t.name === 'tag')!.label = 'Topic';
    const afterTypeChange = await fixture.build({ mode: 'incremental' });
    expect(afterTypeChange.effectiveMode).toBe('full');
    expect(afterTypeChange.rendered).toBe(first.rendered);

    edit(fixture);
    expect((await fixture.build({ mode: 'auto' })).effectiveMode).toBe('incremental');
    fixture.snapshot.templates.find((t) => t.name === '_layout')!.content += '<!-- changed -->';
    expect((await fixture.build({ mode: 'auto' })).effectiveMode).toBe('full');
  });

  it('publishing an item to prod replaces its stub page', async () => {
    const fixture = fixtureOf('blog');
    await fixture.build({ mode: 'full', env: 'prod' });
    fixture.snapshot.items.find((i) => i.id === 'post:draft-ideas')!.publishedEnvs = ['prod'];
    const result = await fixture.build({ mode: 'incremental', env: 'prod' });
    expect(result.effectiveMode).toBe('incremental');
    expect(result.renderedKeys).toContain('item:post:draft-ideas');
    expect(await fixture.readFile('/blog/draft-ideas/')).toContain('<h1>Draft Ideas</h1>');
  });
});

describe.each([
  { variant: 'comparing every page', cache: false },
  { variant: 'with a build cache', cache: true },
])('a saved query in a page ($variant)', ({ cache }) => {
  const webList = async (fixture: Fixture) =>
    /<ol class="web">(.*?)<\/ol>/s.exec(await fixture.readFile('/'))?.[1] ?? 'no list';

  it('renders its result, and re-renders the page when the result changes, and only then', async () => {
    const fixture = siteOf('blog', { cache });
    addSavedQuery(fixture.snapshot);
    expect((await fixture.build({ mode: 'full' })).ok).toBe(true);
    // the web posts, newest first, each linked to its page
    expect(await webList(fixture)).toBe(
      [
        '<li><a href="/blog/static-speed/">Static Speed</a> 2026-04-20</li>',
        '<li><a href="/blog/liquid-layouts/">Liquid Layouts</a> 2026-03-02</li>',
        '<li><a href="/blog/hello-world/">Hello World</a> 2026-01-05</li>',
      ].join(''),
    );

    // a post of another tag (not in the home page's latest posts either): the home page is carried
    edit(fixture);
    const unrelated = await fixture.build({ mode: 'incremental' });
    expect(unrelated.effectiveMode).toBe('incremental');
    expect(unrelated.renderedKeys).not.toContain('route:/#1');

    // the oldest web post, which only the query shows on the home page: it renders again
    const hello = fixture.snapshot.items.find((i) => i.id === 'post:hello-world')!;
    hello.fields = { ...hello.fields, title: 'Hello, Graphs' };
    const edited = await fixture.build({ mode: 'incremental' });
    expect(edited.renderedKeys).toContain('route:/#1');
    expect(await webList(fixture)).toContain('Hello, Graphs</a>');

    // an edge moved away from the tag: the result changes with no item edited
    const edge = fixture.snapshot.edges.find((e) => e.from === 'post:hello-world' && e.edge === 'TAGGED')!;
    edge.to = 'tag:graphs';
    const moved = await fixture.build({ mode: 'incremental' });
    expect(moved.renderedKeys).toContain('route:/#1');
    expect(await webList(fixture)).not.toContain('Hello');
    expect(/<p class="web-total">(\d+)<\/p>/.exec(await fixture.readFile('/'))?.[1]).toBe('2');

    const full = siteOf('blog');
    full.snapshot = structuredClone(fixture.snapshot);
    expect((await full.build({ mode: 'full' })).ok).toBe(true);
    expect(liveFiles(fixture)).toEqual(liveFiles(full));
  });

  it('fails the page with the reason when its parameters do not fit the query', async () => {
    const fixture = siteOf('blog', { cache });
    addSavedQuery(fixture.snapshot);
    const home = fixture.snapshot.templates.find((t) => t.name === 'home')!;
    home.content = home.content.replace("tag: 'web'", 'colour: 1');
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result.errors)).toContain('`tag` is required');
  });
});

describe.each([
  { variant: 'comparing every page', cache: false },
  { variant: 'with a build cache', cache: true },
])('field-level dependencies ($variant)', ({ cache }) => {
  const editPost = (fixture: Fixture, fields: Record<string, unknown>) => {
    const post = fixture.snapshot.items.find((i) => i.id === 'post:graph-gardening')!;
    post.fields = { ...post.fields, ...fields };
  };

  /** A full build, the edit, an incremental build: its rendered keys, checked against a full build of the edited site. */
  async function renderedAfter(
    change: (fixture: Fixture) => void,
    grow?: (snapshot: Fixture['snapshot']) => void,
  ): Promise<{ keys: string[]; reasons: Record<string, number>; carried: number; pages: number }> {
    const fixture = siteOf('blog', { cache });
    grow?.(fixture.snapshot);
    const first = await fixture.build({ mode: 'full' });
    expect(first.ok).toBe(true);
    change(fixture);
    const incremental = await fixture.build({ mode: 'incremental' });
    expect(incremental.ok).toBe(true);
    expect(incremental.effectiveMode).toBe('incremental');
    const full = siteOf('blog');
    full.snapshot = structuredClone(fixture.snapshot);
    expect((await full.build({ mode: 'full' })).ok).toBe(true);
    expect(liveFiles(fixture)).toEqual(liveFiles(full));
    return {
      keys: [...incremental.renderedKeys].sort(),
      reasons: incremental.reasons,
      carried: incremental.carried,
      pages: first.rendered,
    };
  }

  it('an edited body re-renders only the page that shows it, not the listings that show its title', async () => {
    const result = await renderedAfter((f) => editPost(f, { body: 'A new body for graph gardening.' }));
    expect(result.keys).toEqual(['item:post:graph-gardening']);
    expect(result.reasons).toEqual({ 'item-changed': 1 });
    expect(result.carried).toBe(result.pages - 1);
  });

  it('an edited title re-renders its page and every listing that shows the title', async () => {
    const result = await renderedAfter((f) => editPost(f, { title: 'Gardening Graphs' }));
    expect(result.keys).toEqual(['item:post:graph-gardening', 'item:tag:graphs', 'route:/blog/#2']);
  });

  it('a field no template reads re-renders nothing', async () => {
    const result = await renderedAfter((f) => editPost(f, { notes: 'internal' }));
    expect(result.keys).toEqual([]);
    expect(result.carried).toBe(result.pages);
  });

  it('a whole item dumped (`| json`) counts as reading every field', async () => {
    const result = await renderedAfter(
      (f) => editPost(f, { body: 'A new body for graph gardening.' }),
      (s) => {
        const card = s.templates.find((t) => t.name === '_post-card')!;
        card.content += '<script type="application/json">{{ post | json }}</script>';
      },
    );
    expect(result.keys).toEqual(['item:post:graph-gardening', 'item:tag:graphs', 'route:/blog/#2']);
  });

  it('a field read through a filter (`map`) is a dependency of the page', async () => {
    const result = await renderedAfter(
      (f) => editPost(f, { body: 'A new body for graph gardening.' }),
      (s) => {
        const tag = s.templates.find((t) => t.name === 'tag')!;
        tag.content = tag.content.replace(
          '{% endblock %}',
          '<p class="words">{{ posts | map: "body" | join: " " | size }}</p>{% endblock %}',
        );
      },
    );
    expect(result.keys).toEqual(['item:post:graph-gardening', 'item:tag:graphs']);
  });

  it('a field a list sorts by re-renders the listing when the order changes, and not when it holds', async () => {
    const grow = (s: Fixture['snapshot']) => {
      const home = s.templates.find((t) => t.name === 'home')!;
      home.content = home.content.replace(
        '{% endblock %}',
        "{% list 'post' sort: 'body', limit: 1 as first %}<p class=\"first\">{{ first.first.title }}</p>{% endblock %}",
      );
    };
    // the first post by body becomes this one: the home page lists another post
    const moved = await renderedAfter((f) => editPost(f, { body: '  First by body' }), grow);
    expect(moved.keys).toEqual(['item:post:graph-gardening', 'route:/#1']);
    const held = await renderedAfter((f) => editPost(f, { body: 'zzz still last by body' }), grow);
    expect(held.keys).toEqual(['item:post:graph-gardening']);
  });
});

describe('rollback', () => {
  it('restores the previous pages with one pointer switch', async () => {
    const fixture = fixtureOf('blog');
    const first = await fixture.build({ mode: 'full' });
    const before = await fixture.readFile('/blog/graph-gardening/');
    edit(fixture);
    const second = await fixture.build({ mode: 'incremental' });
    expect(await fixture.readFile('/blog/graph-gardening/')).toContain('Revised');
    const { rollback } = await import('./rollback');
    const switched = await rollback({ target: fixture.target, buildId: first.buildId });
    expect(switched).toEqual({ buildId: first.buildId, previousBuildId: second.buildId });
    expect(await fixture.readFile('/blog/graph-gardening/')).toBe(before);
    const versions = await fixture.target.versions!();
    expect(versions.find((v) => v.isLive)?.buildId).toBe(first.buildId);
    await expect(rollback({ target: fixture.target, buildId: 'b-nope' })).rejects.toMatchObject({
      code: 'build_version_not_found',
    });
  });
});

describe('a warm render pool', () => {
  it('gives the same files as one-shot workers across builds, and recovers after a stopped build', async () => {
    const { RenderPool } = await import('./render/render-pool');
    const pool = new RenderPool({ size: 2 });
    try {
      const fixture = fixtureOf('blog');
      expect((await fixture.build({ mode: 'full', pool, workers: 2 })).ok).toBe(true);
      edit(fixture);
      const incremental = await fixture.build({ mode: 'incremental', pool });
      expect(incremental.renderedKeys).toHaveLength(3);
      const full = fixtureOf('blog');
      edit(full);
      await full.build({ mode: 'full' });
      expect(liveFiles(fixture)).toEqual(liveFiles(full));

      const hostile = structuredClone(fixture.snapshot);
      hostile.templates.find((t) => t.name === 'tag')!.content = '{% for i in (1..1000000000) %}{% endfor %}';
      const stopped = await fixture.build({
        source: hostile,
        mode: 'full',
        pool,
        limits: {
          renderTimeMs: Number.POSITIVE_INFINITY,
          memoryBytes: Number.POSITIVE_INFINITY,
          stallTimeoutMs: 1000,
        },
      });
      expect(stopped.errors[0]?.code).toBe('build_stopped');
      fixture.snapshot.items.find((i) => i.id === 'tag:web')!.fields = { name: 'Webby' };
      const after = await fixture.build({ mode: 'incremental', pool });
      expect(after.ok).toBe(true);
      expect(await fixture.readFile('/tags/web/')).toContain('Tag: Webby');
    } finally {
      await pool.close();
    }
  });
});

describe('a build cache', () => {
  /** `templates`: the step changes templates, which (the fixture has transforms) clears the cache */
  type Step = { name: string; templates?: boolean; change: (snapshot: Fixture['snapshot']) => void };

  /**
   * Applies each change to two copies of a site, one building with a cache and one comparing
   * every page, and after each incremental build checks that both rendered the same pages,
   * reported the same deploy counts, and hold exactly the files of a full build.
   */
  async function lockstep(
    steps: Step[],
    options: {
      env?: string;
      fresh?: boolean;
      grow?: (snapshot: Fixture['snapshot']) => void;
      /** the cached site renders on this warm pool */
      pool?: RenderPool;
    } = {},
  ) {
    let manifestReads = 0;
    const env = options.env ?? 'dev';
    const cached = siteOf('blog', { cache: true });
    const plain = siteOf('blog');
    options.grow?.(cached.snapshot);
    options.grow?.(plain.snapshot);
    expect((await cached.build({ mode: 'full', env, pool: options.pool })).ok).toBe(true);
    expect((await plain.build({ mode: 'full', env })).ok).toBe(true);
    for (const step of steps) {
      step.change(cached.snapshot);
      step.change(plain.snapshot);
      // the server exports a new snapshot (new objects) for every build
      let target: Fixture['target'] | undefined;
      if (options.fresh) {
        cached.snapshot = structuredClone(cached.snapshot);
        // and opens the deploy target again: the cache recognises the live build by its head
        target = createDirectoryTarget({ root: join(cached.root, 'site') });
        const read = target.liveManifest.bind(target);
        target.liveManifest = () => {
          manifestReads++;
          return read();
        };
      }
      const withCache = await cached.build({
        mode: 'incremental',
        env,
        ...(target ? { target } : {}),
        ...(options.pool ? { pool: options.pool } : {}),
      });
      const without = await plain.build({ mode: 'incremental', env });
      expect(withCache.ok, step.name).toBe(true);
      expect(withCache.effectiveMode, step.name).toBe(without.effectiveMode);
      expect([...withCache.renderedKeys].sort(), step.name).toEqual([...without.renderedKeys].sort());
      expect(withCache.deploy?.filesUploaded, step.name).toBe(without.deploy?.filesUploaded);
      expect(withCache.deploy?.filesDeleted, step.name).toBe(without.deploy?.filesDeleted);
      expect(withCache.files, step.name).toEqual(without.files);
      const reference = siteOf('blog');
      reference.snapshot = structuredClone(cached.snapshot);
      const full = await reference.build({ mode: 'full', env });
      expect(full.ok).toBe(true);
      expect(liveFiles(cached), step.name).toEqual(liveFiles(reference));
      // and recorded what a full build records: each page's dependencies, as the next build compares them
      expect(withCache.manifest?.artifacts, step.name).toEqual(full.manifest?.artifacts);
    }
    // the live manifest is read only when the cache was cleared
    expect(manifestReads).toBe(options.fresh ? steps.filter((step) => step.templates).length : 0);
  }

  const item = (snapshot: Fixture['snapshot'], id: string) => snapshot.items.find((i) => i.id === id)!;

  const steps: Step[] = [
    { name: 'no change', change: () => {} },
    {
      name: 'a listing sort field',
      change: (s) => {
        item(s, 'post:hello-world').fields = { ...item(s, 'post:hello-world').fields, date: '2026-05-02' };
      },
    },
    {
      name: 'a title shown in listings',
      change: (s) => {
        item(s, 'post:static-speed').fields = {
          ...item(s, 'post:static-speed').fields,
          title: 'Static, Speedy',
        };
      },
    },
    {
      name: 'a partial',
      templates: true,
      change: (s) => {
        s.templates.find((t) => t.name === '_post-card')!.content =
          '<li class="card"><a href="{{ post.url }}">{{ post.title | upcase }}</a></li>';
      },
    },
    {
      name: 'an edge added in place',
      change: (s) => {
        s.edges.push({ from: 'post:liquid-layouts', edge: 'TAGGED', to: 'tag:graphs' });
      },
    },
    {
      name: 'an edge moved in place',
      change: (s) => {
        const edge = s.edges.find((e) => e.from === 'post:hello-world' && e.edge === 'TAGGED')!;
        edge.to = 'tag:graphs';
      },
    },
    {
      name: 'a parent slug (moves its child page)',
      change: (s) => {
        item(s, 'page:about').fields = { ...item(s, 'page:about').fields, slug: 'about-us' };
      },
    },
    {
      name: 'an item deleted and one added',
      change: (s) => {
        s.items = s.items.filter((i) => i.id !== 'post:liquid-layouts');
        s.items.push({ id: 'post:newer', type: 'post', fields: { title: 'Newer', date: '2026-06-01' } });
      },
    },
    {
      name: 'a slug change (a page moves)',
      change: (s) => {
        item(s, 'post:newer').fields = { ...item(s, 'post:newer').fields, slug: 'newest' };
      },
    },
    {
      name: 'a page template disabled',
      templates: true,
      change: (s) => {
        s.templates.find((t) => t.name === 'tag')!.enabled = false;
      },
    },
    {
      name: 'a route',
      change: (s) => {
        s.routes![1]!.paginate!.size = 3;
      },
    },
    {
      name: 'a content edit after a full build',
      change: (s) => {
        item(s, 'tag:web').fields = { name: 'Webby' };
      },
    },
  ];

  it('gives the pages and files of a build without it, after each kind of change', async () => {
    await lockstep(steps);
  });

  /**
   * Templates that read fields in every way a page can (lockstep's `grow`): a whole author
   * dumped as JSON, a field mapped by a filter, a list sorted by the body, a field tested with
   * `contains` and the keys of an item counted (`size`).
   */
  function addFieldReaders(snapshot: Fixture['snapshot']): void {
    const template = (name: string) => snapshot.templates.find((t) => t.name === name)!;
    const post = template('post');
    post.content = post.content.replace(
      '</article>',
      '<script type="application/json">{{ authors | json }}</script><p class="keys">{{ item.size }}</p></article>',
    );
    const tag = template('tag');
    tag.content = tag.content.replace(
      '{% endblock %}',
      '<p class="words">{{ posts | map: "body" | join: " " | size }}</p>{% endblock %}',
    );
    const home = template('home');
    home.content = home.content.replace(
      '{% endblock %}',
      "{% list 'post' sort: 'body', limit: 2 as bybody %}<ol class=\"by-body\">{% for p in bybody %}<li>{{ p.title }}</li>{% endfor %}</ol>" +
        '{% for p in latest %}{% if p.body contains "graph" %}<p class="mentions">{{ p.slug }}</p>{% endif %}{% endfor %}{% endblock %}',
    );
  }

  const fieldSteps: Step[] = [
    {
      name: 'a body edited (read by its page, a filter on the tag page, a list sorted by body)',
      change: (s) => {
        item(s, 'post:graph-gardening').fields = {
          ...item(s, 'post:graph-gardening').fields,
          body: 'Aaa: now first by body.',
        };
      },
    },
    {
      name: 'a body edited that keeps the order',
      change: (s) => {
        item(s, 'post:graph-gardening').fields = {
          ...item(s, 'post:graph-gardening').fields,
          body: 'Aab: still first by body.',
        };
      },
    },
    {
      name: 'a body now read by a contains test',
      change: (s) => {
        item(s, 'post:static-speed').fields = {
          ...item(s, 'post:static-speed').fields,
          body: 'All about graph speed.',
        };
      },
    },
    {
      name: 'a title read by listings',
      change: (s) => {
        item(s, 'post:hello-world').fields = { ...item(s, 'post:hello-world').fields, title: 'Hello again' };
      },
    },
    {
      name: 'an author field no template names (dumped as JSON on post pages)',
      change: (s) => {
        item(s, 'author:ada').fields = { ...item(s, 'author:ada').fields, bio: 'Counts.' };
      },
    },
    {
      name: 'a post field no template names (counted by `item.size`)',
      change: (s) => {
        item(s, 'post:liquid-layouts').fields = { ...item(s, 'post:liquid-layouts').fields, notes: 'x' };
      },
    },
    {
      name: 'a tag field no template names',
      change: (s) => {
        item(s, 'tag:web').fields = { ...item(s, 'tag:web').fields, color: 'blue' };
      },
    },
  ];

  it('follows field-level reads: filters, sorts, contains, JSON dumps and key counts', async () => {
    await lockstep(fieldSteps, { grow: addFieldReaders });
    await lockstep(fieldSteps, { grow: addFieldReaders, fresh: true });
  });

  /**
   * Memoized partials (lockstep's `grow`): a sidebar on every page renders the latest posts with
   * a card that renders a nested partial reading `excerpt` (a field only partials read), and a
   * partial given the site; the same partials for the same items render once per build and
   * replay what they read on the other pages.
   */
  function addMemoizedPartials(snapshot: Fixture['snapshot']): void {
    const template = (name: string) => snapshot.templates.find((t) => t.name === name)!;
    const add = (name: string, content: string) =>
      snapshot.templates.push({ name, content, boundType: '', enabled: true, version: 1 } as never);
    add(
      '_sidebar',
      "{% list 'post' sort: '-date', limit: 2 as newest %}<aside>{% render '_brand', site: site %}<ul>{% for post in newest %}{% render '_memo-card', post: post %}{% endfor %}</ul></aside>",
    );
    add('_brand', '<b>{{ site.name }}</b>');
    add('_memo-card', '<li>{{ post.title }} {% render \'_excerpt\', post: post, tag: "x" %}</li>');
    add('_excerpt', '<small>{{ post.excerpt }}</small>');
    const layout = template('_layout');
    layout.content = layout.content.replace('<main>', "{% render '_sidebar', site: site %}<main>");
  }

  const memoSteps: Step[] = [
    {
      name: 'an excerpt read only by a memoized nested partial on every page',
      change: (s) => {
        item(s, 'post:static-speed').fields = { ...item(s, 'post:static-speed').fields, excerpt: 'Faster.' };
      },
    },
    {
      name: 'a field no partial reads',
      change: (s) => {
        item(s, 'post:static-speed').fields = { ...item(s, 'post:static-speed').fields, notes: 'n' };
      },
    },
    {
      name: 'a date that moves a post into the sidebar',
      change: (s) => {
        item(s, 'post:hello-world').fields = { ...item(s, 'post:hello-world').fields, date: '2027-01-01' };
      },
    },
    {
      name: 'a sidebar post deleted',
      change: (s) => {
        s.items = s.items.filter((i) => i.id !== 'post:hello-world');
      },
    },
    {
      name: 'a title shown by the memoized card',
      change: (s) => {
        item(s, 'post:static-speed').fields = { ...item(s, 'post:static-speed').fields, title: 'Speedier' };
      },
    },
  ];

  it('follows what memoized partials read: nested partials, lists inside partials, items edited and removed', async () => {
    await lockstep(memoSteps, { grow: addMemoizedPartials });
    await lockstep(memoSteps, { grow: addMemoizedPartials, fresh: true });
    const pool = new RenderPool({ size: 2 });
    try {
      await lockstep(memoSteps, { grow: addMemoizedPartials, pool });
    } finally {
      await pool.close();
    }
  });

  it('follows field-level reads with a saved query on a page', async () => {
    const grow = (s: Fixture['snapshot']) => {
      addSavedQuery(s);
      addFieldReaders(s);
    };
    await lockstep(fieldSteps, { grow, fresh: true });
  });

  it('does so with a new snapshot object for every build, as the server exports', async () => {
    await lockstep(steps, { fresh: true });
  });

  it('does so on a site without transforms (template changes keep the cache)', async () => {
    await lockstep(
      steps.map((step) => ({ ...step, templates: false })),
      { fresh: true, grow: noTransforms },
    );
  });

  it('keeps the workers of a warm pool up to date: patched with the changed items and URLs', async () => {
    const pool = new RenderPool({ size: 2 });
    try {
      await lockstep(steps, { pool });
      await lockstep(steps, { pool, fresh: true });
      // without transforms, unchanged items stay the same objects: a worker that read the child
      // page's item must see its new URL when the parent's edit moves it
      const moves: Step[] = [
        {
          name: 'a child page',
          change: (s) => {
            item(s, 'section:team').fields = { ...item(s, 'section:team').fields, title: 'The Team' };
          },
        },
        ...steps.filter((step) => step.name.startsWith('a parent slug')),
      ];
      await lockstep(moves, { pool, grow: noTransforms });
      await lockstep(
        steps.map((step) => ({ ...step, templates: false })),
        { pool, grow: noTransforms },
      );
      await lockstep(publishing, { pool, env: 'prod' });
    } finally {
      await pool.close();
    }
  });

  const publishing: Step[] = [
    {
      name: 'unpublish',
      change: (s) => {
        item(s, 'post:static-speed').publishedEnvs = [];
      },
    },
    {
      name: 'publish',
      change: (s) => {
        item(s, 'post:draft-ideas').publishedEnvs = ['prod'];
      },
    },
    {
      name: 'edit an unpublished item',
      change: (s) => {
        item(s, 'post:static-speed').fields = { ...item(s, 'post:static-speed').fields, title: 'Hidden' };
      },
    },
  ];

  it('does so with a saved query on a page: its result as a dependency (incremental equals full)', async () => {
    const kept = new Set([
      'no change',
      'a title shown in listings',
      'an edge added in place',
      'an edge moved in place',
      'an item deleted and one added',
      'a content edit after a full build',
    ]);
    const queried: Step[] = [
      ...steps.filter((step) => kept.has(step.name)),
      {
        name: 'the saved query changed',
        change: (s) => {
          s.queries![0]!.query = { ...s.queries![0]!.query, select: ['title'] };
        },
      },
      {
        name: 'a post tagged web',
        change: (s) => {
          s.items.push({ id: 'post:webby', type: 'post', fields: { title: 'Webby', date: '2026-07-01' } });
          s.edges.push({ from: 'post:webby', edge: 'TAGGED', to: 'tag:web' });
        },
      },
    ];
    await lockstep(queried, { grow: addSavedQuery, fresh: true });
  });

  /** Changes to what site collections and pages per distinct value read (see test/authoring-site.ts). */
  const authoring: Step[] = [
    {
      name: 'an author renamed (a site collection)',
      change: (s) => {
        item(s, 'author:ada').fields = { name: 'Ada Lovelace' };
      },
    },
    {
      name: 'a label added (a new distinct value, a new page set)',
      change: (s) => {
        const post = item(s, 'post:liquid-layouts');
        post.fields = { ...post.fields, labels: ['news', 'fresh'] };
      },
    },
    {
      name: 'a label removed (its page set goes)',
      change: (s) => {
        const post = item(s, 'post:graph-gardening');
        post.fields = { ...post.fields, labels: ['graphs'] };
      },
    },
    {
      name: 'a value page grows a second page',
      change: (s) => {
        const post = item(s, 'post:graph-gardening');
        post.fields = { ...post.fields, labels: ['graphs', 'intro', 'fresh'] };
        const hello = item(s, 'post:hello-world');
        hello.fields = { ...hello.fields, labels: ['intro', 'news', 'fresh'] };
      },
    },
    {
      name: 'a date in another time zone (sorted by instant)',
      change: (s) => {
        const post = item(s, 'post:hello-world');
        post.fields = { ...post.fields, date: '2026-05-02T01:00:00+09:00' };
      },
    },
    {
      name: 'a body edited (grouped collections show titles only)',
      change: (s) => {
        const post = item(s, 'post:graph-gardening');
        post.fields = { ...post.fields, body: 'Rewritten.' };
      },
    },
    {
      name: 'the title a label group shows first',
      change: (s) => {
        const post = item(s, 'post:graph-gardening');
        post.fields = { ...post.fields, title: 'Graphs, gardened' };
      },
    },
    {
      name: 'an item no collection reads',
      change: (s) => {
        item(s, 'page:about').fields = { ...item(s, 'page:about').fields, body: 'Changed.' };
      },
    },
  ];

  it('follows site collections and pages per distinct value', async () => {
    await lockstep(authoring, { grow: addAuthoring, fresh: true });
  });

  it('keeps a warm pool right across collection and distinct-value changes', async () => {
    const pool = new RenderPool({ size: 2 });
    try {
      await lockstep(authoring, { pool, grow: addAuthoring });
    } finally {
      await pool.close();
    }
  });

  it('follows publishing: stub pages appear and go', async () => {
    await lockstep(publishing, { env: 'prod' });
  });

  it('is not used after a rollback or a failed build', async () => {
    const cache = new BuildCache();
    const fixture = siteOf('blog');
    const build = (options: Parameters<Fixture['build']>[0] = {}) => fixture.build({ cache, ...options });
    const first = await build({ mode: 'full' });
    edit(fixture);
    await build({ mode: 'incremental' });
    const { rollback } = await import('./rollback');
    await rollback({ target: fixture.target, buildId: first.buildId });
    // the live version is the first build again; the cache describes the second
    item(fixture.snapshot, 'tag:graphs').fields = { name: 'Graph Theory' };
    const afterRollback = await build({ mode: 'incremental' });
    expect(afterRollback.renderedKeys).toContain('item:post:graph-gardening');

    const broken = fixture.snapshot.templates.find((t) => t.name === 'post')!;
    const good = broken.content;
    item(fixture.snapshot, 'post:hello-world').fields = {
      ...item(fixture.snapshot, 'post:hello-world').fields,
      title: 'Hello Again',
    };
    broken.content = '{% if %}';
    expect((await build({ mode: 'incremental' })).ok).toBe(false);
    broken.content = good;
    const recovered = await build({ mode: 'incremental' });
    expect(recovered.ok).toBe(true);
    expect(recovered.renderedKeys).toContain('item:post:hello-world');

    const reference = siteOf('blog');
    reference.snapshot = structuredClone(fixture.snapshot);
    await reference.build({ mode: 'full' });
    expect(liveFiles(fixture)).toEqual(liveFiles(reference));
  });

  const localized: Step[] = [
    { name: 'no change (localized)', change: () => {} },
    {
      name: 'a French title',
      change: (s) => {
        item(s, 'post:graph-gardening').translations = { fr: { title: 'Jardins de graphes' } };
      },
    },
    {
      name: 'a French slug (the French and Canadian pages move)',
      change: (s) => {
        item(s, 'post:hello-world').translations = {
          ...item(s, 'post:hello-world').translations,
          fr: { title: 'Bonjour le monde', slug: 'salut-le-monde' },
        };
      },
    },
    {
      name: 'a UI string of the default locale (French falls back to it)',
      // UI strings are read by transforms too (the fixture has some): the cache is cleared
      templates: true,
      change: (s) => {
        s.translations = [
          { locale: 'en', entries: { 'nav.home': 'Home', 'nav.blog': 'Weblog' } },
          ...(s.translations ?? []).filter((strings) => strings.locale !== 'en'),
        ];
      },
    },
    {
      name: 'a translation removed (French falls back to English)',
      change: (s) => {
        item(s, 'post:graph-gardening').translations = undefined;
      },
    },
    {
      name: 'an English title that French does not translate',
      change: (s) => {
        item(s, 'post:static-speed').fields = {
          ...item(s, 'post:static-speed').fields,
          title: 'Fast Static',
        };
      },
    },
    {
      name: 'a French slug of a parent page (its French sections move, the page does not)',
      change: (s) => {
        item(s, 'page:about').translations = { fr: { slug: 'a-propos' } };
      },
    },
    {
      name: 'a translated post added',
      change: (s) => {
        s.items.push({
          id: 'post:newest',
          type: 'post',
          fields: { title: 'Newest', date: '2026-07-01' },
          translations: { fr: { title: 'Le plus récent', slug: 'le-plus-recent' } },
        });
      },
    },
  ];

  it('does so on a localized site: item translations, translated slugs and UI strings', async () => {
    await lockstep(localized, { grow: localizeBlog });
    await lockstep(localized, { grow: localizeBlog, fresh: true });
  });

  it('keeps a warm pool up to date on a localized site', async () => {
    const pool = new RenderPool({ size: 2 });
    try {
      await lockstep(localized, { pool, grow: localizeBlog });
    } finally {
      await pool.close();
    }
  });

  it('rebuilds only the search shards holding a changed item, on a site with several shards', async () => {
    await lockstep(
      [
        {
          name: 'one generated post',
          change: (s) => {
            item(s, 'post:gen-7').fields = { ...item(s, 'post:gen-7').fields, body: 'Zebra' };
          },
        },
        {
          name: 'one deleted, one added',
          change: (s) => {
            s.items = s.items.filter((i) => i.id !== 'post:gen-8');
            s.items.push({
              id: 'post:gen-new',
              type: 'post',
              fields: { title: 'Fresh', date: '2025-02-01' },
            });
          },
        },
        { name: 'no change', change: () => {} },
      ],
      { grow: addGeneratedPosts, fresh: true },
    );
  });

  it('keeps a warm pool right when a small build leaves a worker idle and a larger one uses it again', async () => {
    const pool = new RenderPool({ size: 2 });
    const edit = (id: string, body: string): Step => ({
      name: `${id} edited`,
      change: (s) => {
        item(s, id).fields = { ...item(s, id).fields, body };
      },
    });
    try {
      await lockstep(
        [
          // a few pages each: one worker renders, the other owes these patches
          edit('post:gen-7', 'Zebra'),
          edit('post:gen-9', 'Yak'),
          {
            name: 'one deleted, one added',
            change: (s) => {
              s.items = s.items.filter((i) => i.id !== 'post:gen-8');
              s.items.push({
                id: 'post:gen-new',
                type: 'post',
                fields: { title: 'Fresh', date: '2025-02-01' },
              });
            },
          },
          // read by half the posts: both workers render, the idle one after its owed patches
          {
            name: 'a tag renamed',
            change: (s) => {
              item(s, 'tag:web').fields = { ...item(s, 'tag:web').fields, name: 'Webby' };
            },
          },
          edit('post:gen-11', 'Xerus'),
        ],
        { grow: addGeneratedPosts, pool },
      );
    } finally {
      await pool.close();
    }
  });
});
