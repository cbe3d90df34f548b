import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Fixture, loadFixture, readFixtureSnapshot } from '../test/load-fixture';
import { ShardIndexWorker, shardWorkerMinDocs } from './emit/shard-index-worker';
import { STUB_PAGE } from './render/renderer';

let fixture: Fixture;
afterEach(() => fixture?.cleanup());

describe('build', () => {
  it('renders item pages with layouts, partials, tags and sanitized markdown', async () => {
    fixture = loadFixture('blog');
    const result = await fixture.build({ mode: 'full' });
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.effectiveMode).toBe('full');
    const post = await fixture.readFile('/blog/liquid-layouts/');
    expect(post).toContain('<title>Liquid Layouts · Fixture Blog</title>');
    expect(post).toContain('<a href="/tags/web/">Web</a>');
    expect(post).not.toContain('<script>alert(1)</script>');
    const hello = await fixture.readFile('/blog/hello-world/');
    expect(hello).toContain('<strong>first</strong>');
    expect(hello).toContain('<p class="author">By Ada</p>');
    expect(hello).toContain('<p class="excerpt">The **first** post of the fixture...</p>');
    const tag = await fixture.readFile('/tags/web/');
    expect(tag.match(/class="post-card"/g)).toHaveLength(3);
  });

  it('escapes output by default', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.items[0]!.fields.title = '<img src=x onerror=alert(1)>';
    await fixture.build({ mode: 'full' });
    const page = await fixture.readFile('/blog/hello-world/');
    expect(page).toContain('<h1>&lt;img src=x onerror=alert(1)&gt;</h1>');
  });

  it('resolves routePatterns: literal + slug, the fallback, and {parent.slug}', async () => {
    fixture = loadFixture('blog');
    await fixture.build({ mode: 'full' });
    expect(fixture.pathExists('/blog/hello-world/')).toBe(true);
    expect(fixture.pathExists('/page/about/')).toBe(true);
    expect(fixture.pathExists('/about/team/')).toBe(true);
  });

  it('emits no pages for listingOnly types, and emitPages wins over listingOnly', async () => {
    fixture = loadFixture('blog');
    await fixture.build({ mode: 'full' });
    expect(fixture.pathExists('/author/ada/')).toBe(false);
    const tagType = fixture.snapshot.types.find((t) => t.name === 'tag')!;
    tagType.emitPages = false;
    const author = fixture.snapshot.types.find((t) => t.name === 'author')!;
    author.emitPages = true;
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(true);
    expect(fixture.pathExists('/tags/web/')).toBe(false);
    expect(fixture.pathExists('/author/ada/')).toBe(true);
    // tags stay readable through {% traverse %}
    expect(await fixture.readFile('/blog/hello-world/')).toContain('>Web</a>');
  });

  it('paginates listing routes', async () => {
    fixture = loadFixture('blog');
    await fixture.build({ mode: 'full' });
    const first = await fixture.readFile('/blog/');
    expect(first).toContain('Blog, page 1 of 3');
    expect(first).toContain('<a rel="next" href="/blog/page/2/">');
    expect(first.indexOf('Static Speed')).toBeLessThan(first.indexOf('Draft Ideas'));
    const last = await fixture.readFile('/blog/page/3/');
    expect(last).toContain('Hello World');
    expect(last).toContain('<a rel="prev" href="/blog/page/2/">');
    expect(await fixture.readFile('/')).toContain('<p class="count">5 posts</p>');
  });

  it('writes sitemap.xml and a MiniSearch index that finds pages', async () => {
    fixture = loadFixture('blog');
    await fixture.build({ mode: 'full' });
    const sitemap = await fixture.readFile('sitemap.xml');
    expect(sitemap).toContain(
      '<url><loc>https://blog.example.org/blog/hello-world/</loc><lastmod>2026-01-05</lastmod></url>',
    );
    expect(sitemap).toContain('<loc>https://blog.example.org/</loc>');
    const manifest = JSON.parse(await fixture.readFile('search/manifest.json'));
    const index = MiniSearch.loadJSON(
      await fixture.readFile(`search/${manifest.shards[0]}`),
      manifest.options,
    );
    const hits = index.search('zucchini');
    expect(hits.map((hit) => hit.url)).toEqual(['/blog/graph-gardening/']);
    expect(fixture.pathExists('search/search.js')).toBe(true);
    expect(await fixture.readFile('search/minisearch.js')).toContain('MiniSearch');
  });

  it('makes the search shards of a large site in a worker, with the same bytes', async () => {
    const made = async () => {
      const site = loadFixture('blog');
      try {
        const result = await site.build({ mode: 'full' });
        const files = result.files.filter((f) => f.file.startsWith('search/index-'));
        return await Promise.all(files.map((f) => site.readFile(f.file)));
      } finally {
        site.cleanup();
      }
    };
    const inThread = await made();
    const build = vi.spyOn(ShardIndexWorker.prototype, 'build');
    const threshold = shardWorkerMinDocs.value;
    shardWorkerMinDocs.value = 1;
    try {
      const inWorker = await made();
      expect(inThread.length).toBeGreaterThan(0);
      expect(build).toHaveBeenCalledTimes(inThread.length);
      expect(inWorker).toEqual(inThread);
    } finally {
      shardWorkerMinDocs.value = threshold;
      build.mockRestore();
    }
  });

  it('writes the sitemap and search files through the session once, before the commit, and counts their bytes', async () => {
    fixture = loadFixture('blog');
    const { target } = fixture;
    const open = target.open.bind(target);
    const writes = new Map<string, number>();
    let committed = false;
    const writtenAfterCommit: string[] = [];
    target.open = async (params) => {
      const session = await open(params);
      return {
        ...session,
        writeFile: (path, data) => {
          writes.set(path, (writes.get(path) ?? 0) + 1);
          if (committed) writtenAfterCommit.push(path);
          return session.writeFile(path, data);
        },
        commit: (commitParams) => {
          committed = true;
          return session.commit(commitParams);
        },
      };
    };
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(true);
    const extras = result.files.filter((f) => f.file === 'sitemap.xml' || f.file.startsWith('search/'));
    expect(extras.length).toBeGreaterThan(3);
    for (const extra of extras) {
      expect(writes.get(extra.file)).toBe(1);
      expect(extra.bytes).toBe(Buffer.byteLength(await fixture.readFile(extra.file)));
    }
    expect(writtenAfterCommit).toEqual([]);
  });

  it('renders page routes with their item and redirect routes as redirect pages', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.routes!.push(
      {
        slug: 'featured',
        path: '/featured/',
        kind: 'page',
        template: 'default',
        contentId: 'post:static-speed',
      },
      { slug: 'old', path: '/old-blog/', kind: 'redirect', redirectTo: '/blog/' },
    );
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(true);
    expect(await fixture.readFile('/featured/')).toContain('<h1>Static Speed</h1>');
    expect(await fixture.readFile('/old-blog/')).toContain(
      '<meta http-equiv="refresh" content="0; url=/blog/">',
    );
    expect(await fixture.readFile('sitemap.xml')).not.toContain('old-blog');
  });

  it('emits no search index when searchEmission is none', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.site.searchEmission = 'none';
    const result = await fixture.build({ mode: 'full' });
    expect(result.files.some((f) => f.file.startsWith('search/'))).toBe(false);
  });

  it('prod builds only content published to prod; other items get a stub page', async () => {
    fixture = loadFixture('blog');
    const result = await fixture.build({ mode: 'full', env: 'prod' });
    expect(result.ok).toBe(true);
    expect(await fixture.readFile('/blog/draft-ideas/')).toBe(STUB_PAGE);
    expect(await fixture.readFile('/')).toContain('<p class="count">4 posts</p>');
    expect(await fixture.readFile('/blog/')).not.toContain('Draft Ideas');
    expect(await fixture.readFile('sitemap.xml')).not.toContain('draft-ideas');
    const dev = loadFixture('blog');
    try {
      await dev.build({ mode: 'full', env: 'dev' });
      expect(await dev.readFile('/blog/draft-ideas/')).toContain('<h1>Draft Ideas</h1>');
    } finally {
      dev.cleanup();
    }
  });

  it('reports a template error for the page and deploys nothing, without throwing', async () => {
    fixture = loadFixture('blog');
    await fixture.build({ mode: 'full' });
    const before = await fixture.readFile('/tags/web/');
    fixture.snapshot.templates.find((t) => t.name === 'tag')!.content = '{{ item.name | no_such_filter }}';
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(false);
    expect(result.deploy).toBeNull();
    const failed = result.errors.filter((e) => e.code === 'render_failed');
    expect(failed.map((e) => e.key).sort()).toEqual(['item:tag:graphs', 'item:tag:web']);
    expect(failed[0]!.message).toMatch(/no_such_filter/);
    expect(failed[0]!.template).toBe('tag');
    expect(await fixture.readFile('/tags/web/')).toBe(before);
  });

  it('reports a runtime template error (render limit) as a page error', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.templates.find((t) => t.name === 'tag')!.content =
      '{% for i in (1..100000000) %}{{ i }}{% endfor %}';
    const result = await fixture.build({ mode: 'validate', limits: { memoryBytes: 1_000_000 } });
    expect(result.ok).toBe(false);
    expect(result.errors.filter((e) => e.code === 'render_failed')).toHaveLength(2);
  });

  it('reports endless template recursion as a page error', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.templates.push({
      name: '_loop',
      content: "{% include '_loop' %}",
      boundType: '',
      enabled: true,
    });
    fixture.snapshot.templates.find((t) => t.name === 'tag')!.content = "{% include '_loop' %}";
    const result = await fixture.build({ mode: 'validate' });
    expect(result.ok).toBe(false);
    const failed = result.errors.filter((e) => e.code === 'render_failed');
    expect(failed.map((e) => e.key).sort()).toEqual(['item:tag:graphs', 'item:tag:web']);
    expect(failed[0]!.message).toMatch(/call stack|limit/i);
  }, 90_000);

  it('reports a failing transform in transformErrors and still renders the item', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.transforms!.push(
      {
        id: 'tf-broken',
        name: 'broken',
        kind: 'set-field',
        type: 'tag',
        field: 'label',
        value: '{{ item.name | nope }}',
      },
      {
        id: 'tf-upper',
        name: 'upper',
        kind: 'set-field',
        type: 'tag',
        field: 'name',
        value: '{{ item.name | upcase }}',
      },
      { id: 'tf-script', name: 'script', kind: 'script', event: 'beforeRender', type: 'page', field: 'x' },
      {
        id: 'tf-later',
        name: 'later',
        kind: 'set-field',
        event: 'afterSave',
        type: 'tag',
        field: 'name',
        value: 'no',
      },
    );
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(true);
    expect(result.transformErrors).toHaveLength(3);
    expect(result.transformErrors[2]).toMatchObject({ contentId: 'page:about', transform: 'script' });
    expect(result.transformErrors[0]).toMatchObject({ contentId: 'tag:graphs', transform: 'broken' });
    expect(result.transformErrors[0]!.error).toMatch(/nope/);
    expect(await fixture.readFile('/tags/web/')).toContain('<h1>Tag: WEB</h1>');
  });

  it('reports route collisions instead of overwriting a page', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.items.push({
      id: 'page:blog',
      type: 'page',
      fields: { title: 'Clash' },
      publishedEnvs: ['prod'],
    });
    fixture.snapshot.types.find((t) => t.name === 'page')!.routePattern = '/{slug}/';
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(false);
    const collision = result.errors.find((e) => e.code === 'route_collision');
    expect(collision).toMatchObject({ key: 'item:page:blog', path: '/blog/' });
    expect(collision!.message).toContain('route:/blog/#1');
    expect(result.deploy).toBeNull();
  });

  it('validate renders in memory, returns the files and writes nothing', async () => {
    fixture = loadFixture('blog');
    const result = await fixture.build({ mode: 'validate' });
    expect(result.ok).toBe(true);
    expect(result.manifest).toBeNull();
    expect(result.deploy).toBeNull();
    expect(result.files.map((f) => f.file)).toContain('blog/hello-world/index.html');
    expect(result.transformErrors).toEqual([]);
    expect(existsSync(join(fixture.root, 'site'))).toBe(false);
    expect(readdirSync(fixture.root)).toEqual([]);
  });

  it('stops a build at the first page whose loops run past the render time limit, in about that time', async () => {
    fixture = loadFixture('blog');
    // nested loops that output: the render limit is checked on every turn of every loop
    const hostile =
      '{% for i in (1..100000) %}{% for j in (1..100000) %}{{ i }}{{ item.title }}{% endfor %}{% endfor %}';
    for (const name of ['post', 'tag'])
      fixture.snapshot.templates.find((t) => t.name === name)!.content = hostile;
    const cpuBefore = process.cpuUsage();
    const result = await fixture.build({
      mode: 'full',
      workers: 2,
      // seven hostile pages of a second each: before, the worker reported no progress for seven
      // seconds and only the stall watchdog stopped it
      limits: { renderTimeMs: 1000, stallTimeoutMs: 5000 },
    });
    // user CPU of this test process, every thread (the render workers are threads of it): the
    // loops' own cost, which a busy machine does not stretch the way it stretches wall time
    const userCpuMs = process.cpuUsage(cpuBefore).user / 1000;
    expect(result.ok).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ code: 'build_stopped' });
    expect(result.errors[0]!.message).toMatch(
      /^page item:(post|tag):[a-z-]+ \(template "(post|tag)"\) ran past the render time limit of 1000 ms \(template render limit exceeded/,
    );
    expect(result.errors[0]!.message).not.toMatch(/no progress/);
    // the first limit stops it: a worker loops for about a second besides loading its modules
    // (1.2 s of user CPU in all at load 8). Without the check inside the loops a worker looped
    // until the stall watchdog stopped it, 5 s of loop CPU at least. (A wall-time bound of 4.5 s
    // failed once at a load average of 25.)
    expect(userCpuMs).toBeLessThan(4500);
    expect(existsSync(join(fixture.root, 'site', 'current'))).toBe(false);
    // in this thread (workers: 0) too
    const inThread = await fixture.build({ mode: 'validate', workers: 0, limits: { renderTimeMs: 300 } });
    expect(inThread.errors[0]!.message).toMatch(/ran past the render time limit of 300 ms/);
  });

  it('runs transforms off the calling thread and stops looping ones at their time limit', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.transforms!.push({
      id: 'tf-hostile',
      name: 'hostile',
      kind: 'set-field',
      field: 'spin',
      value: '{% for i in (1..100000) %}{% for j in (1..100000) %}{{ i }}{% endfor %}{% endfor %}',
    });
    let maxGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 10);
    const started = performance.now();
    const result = await fixture.build({ mode: 'full', limits: { transformTimeMs: 3000 } });
    const tookMs = performance.now() - started;
    clearInterval(ticker);
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([
      {
        code: 'transforms_stopped',
        message: expect.stringMatching(
          /^transform "hostile" ran past its time limit of 3000 ms on post:hello-world/,
        ),
      },
    ]);
    expect(result.transformErrors).toEqual([
      expect.objectContaining({ contentId: 'post:hello-world', transform: 'hostile' }),
    ]);
    expect(tookMs).toBeLessThan(30_000);
    // the loop ran in a worker: this thread kept running its timers (before: blocked for the
    // whole transform, 3 s here, 2 s per item by default); the bound leaves room for a busy
    // machine's scheduling (350 ms seen at load 10, over 1 s once at load 25) and stays well
    // under the limit
    expect(maxGap).toBeLessThan(2000);
    expect(existsSync(join(fixture.root, 'site', 'current'))).toBe(false);
  });

  it('bounds all the transforms of a build by one budget', async () => {
    fixture = loadFixture('blog');
    // a loop that ends, well under each item's limit: only the build-wide budget stops it
    fixture.snapshot.transforms!.push({
      id: 'tf-slow',
      name: 'slow',
      kind: 'set-field',
      field: 'slow',
      value: '{% for i in (1..50000) %}{% endfor %}',
    });
    const result = await fixture.build({
      mode: 'validate',
      workers: 0,
      limits: { transformTimeMs: 60_000, transformBudgetMs: 5 },
    });
    expect(result.ok).toBe(false);
    expect(result.errors[0]).toMatchObject({ code: 'transforms_stopped' });
    expect(result.errors[0]!.message).toMatch(/^the transforms ran past their budget of 5 ms for the build/);
  });

  it('runs script transforms in the QuickJS sandbox: the page shows what the script returned', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.scripts = [
      {
        name: 'shout',
        source: 'return { fields: { name: item.fields.name.toUpperCase() + "!" } };',
        timeoutMs: 1000,
      },
    ];
    fixture.snapshot.transforms!.push({
      id: 'tf-shout',
      name: 'shout tags',
      kind: 'script',
      event: 'beforeRender',
      type: 'tag',
      script: 'shout',
    });
    for (const workers of [2, 0]) {
      const result = await fixture.build({ mode: 'full', workers });
      expect(result.transformErrors).toEqual([]);
      expect(result.ok).toBe(true);
      expect(await fixture.readFile('/tags/web/')).toContain('<h1>Tag: WEB!</h1>');
    }
    // a script bound to a build event runs without a transform
    fixture.snapshot.transforms = [];
    fixture.snapshot.scripts[0]!.event = 'beforeBuild';
    fixture.snapshot.scripts[0]!.type = 'tag';
    expect((await fixture.build({ mode: 'full' })).ok).toBe(true);
    expect(await fixture.readFile('/tags/web/')).toContain('<h1>Tag: WEB!</h1>');
  });

  it('runs afterRender transforms on each rendered page of their type: Liquid and scripts', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.scripts = [
      {
        name: 'stamp',
        source:
          'return { html: page.html.replace("</h1>", " [" + item.id + " at " + page.path + "]</h1>") };',
      },
    ];
    fixture.snapshot.transforms!.push(
      {
        id: 'tf-stamp',
        name: 'stamp pages',
        kind: 'script',
        event: 'afterRender',
        type: 'tag',
        script: 'stamp',
      },
      {
        id: 'tf-comment',
        name: 'comment',
        kind: 'set-field',
        event: 'afterRender',
        type: 'tag',
        field: 'html',
        value: '{{ html | raw }}<!-- {{ item.name }} -->',
        order: 1,
      },
    );
    for (const workers of [2, 0]) {
      const result = await fixture.build({ mode: 'full', workers });
      expect(result.errors).toEqual([]);
      const tag = await fixture.readFile('/tags/web/');
      expect(tag).toContain('<h1>Tag: Web [tag:web at /tags/web/]</h1>');
      expect(tag.endsWith('<!-- Web -->')).toBe(true);
      // other types' pages are left alone
      expect(await fixture.readFile('/blog/hello-world/')).not.toContain('<!--');
    }
    // a failing one fails the page, naming the transform
    fixture.snapshot.scripts[0]!.source = 'throw new Error("nope")';
    const failed = await fixture.build({ mode: 'full' });
    expect(failed.ok).toBe(false);
    expect(failed.errors[0]).toMatchObject({ code: 'render_failed' });
    expect(failed.errors[0]!.message).toMatch(/afterRender transform "stamp pages": nope/);
  });

  it('fails the build naming the transform when its script loops past its limit', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.scripts = [{ name: 'spin', source: 'while (true) {}', timeoutMs: 300 }];
    fixture.snapshot.transforms!.push({ id: 'tf-spin', name: 'spinner', kind: 'script', script: 'spin' });
    const result = await fixture.build({ mode: 'full' });
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([
      {
        code: 'transforms_stopped',
        message: expect.stringMatching(
          /^transform "spinner" was stopped on [a-z]+:[a-z-]+: script "spin" was stopped: it ran past its time limit of 300 ms/,
        ),
      },
    ]);
    expect(existsSync(join(fixture.root, 'site', 'current'))).toBe(false);
  });

  it('stops a hostile template with the worker limit and ends only its own build', async () => {
    fixture = loadFixture('blog');
    fixture.snapshot.templates.find((t) => t.name === 'tag')!.content =
      '{% for i in (1..1000000000) %}{% for j in (1..1000000000) %}{% endfor %}{% endfor %}';
    const result = await fixture.build({
      mode: 'full',
      // liquidjs's own limits off: only the worker watchdog is left to stop it
      limits: {
        renderTimeMs: Number.POSITIVE_INFINITY,
        memoryBytes: Number.POSITIVE_INFINITY,
        stallTimeoutMs: 1500,
      },
    });
    expect(result.ok).toBe(false);
    expect(result.errors[0]).toMatchObject({ code: 'build_stopped' });
    expect(result.errors[0]!.message).toMatch(/no progress/);
    expect(existsSync(join(fixture.root, 'site', 'current'))).toBe(false);
    // the next build of the same site works
    fixture.snapshot = readFixtureSnapshot('blog');
    expect((await fixture.build({ mode: 'full' })).ok).toBe(true);
  });
});
