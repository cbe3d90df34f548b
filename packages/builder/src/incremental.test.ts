import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, loadFixture } from '../test/load-fixture';

const open: Fixture[] = [];
afterEach(() => {
  for (const fixture of open.splice(0)) fixture.cleanup();
});

function fixtureOf(name: string): Fixture {
  const fixture = loadFixture(name);
  open.push(fixture);
  return fixture;
}

/** Every file of the live version, path → content. */
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

describe('incremental builds', () => {
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
