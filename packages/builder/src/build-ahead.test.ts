import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import type { BuildManifest } from '@trelliscms/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, loadFixture } from '../test/load-fixture';
import { tempDir } from '../test/temp-dir';
import { build } from './build';
import { createDirectoryTarget } from './deploy/directory-target';
import { createFolderTarget } from './deploy/folder-target';
import type { DeployTarget } from './deploy/types';
import {
  BuildCache,
  type BuildState,
  keepPrebuilt,
  MAX_PREBUILT_STATES,
  takePrebuilt,
} from './incremental/build-cache';
import { RenderPool } from './render/render-pool';
import { activateVersion } from './rollback';
import type { Snapshot } from './snapshot/types';

// Building ahead: a version committed with `activate: false` is complete but not live, the
// state kept between builds keeps describing the live version, and whichever version goes
// live next, the next incremental build gives exactly the files of a full build.

const open: Fixture[] = [];
afterEach(() => {
  for (const fixture of open.splice(0)) fixture.cleanup();
});

function site(): Fixture {
  const fixture = loadFixture('blog');
  open.push(fixture);
  return fixture;
}

/** Every file under a folder, path → content. */
function filesUnder(root: string): Map<string, string> {
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

const liveFiles = (fixture: Fixture) => filesUnder(join(fixture.root, 'site', 'current'));
const versionFiles = (fixture: Fixture, buildId: string) =>
  filesUnder(join(fixture.root, 'site', 'versions', buildId));

/** The files and manifest artifacts of a full build of `snapshot` on a site of its own. */
async function fullBuildOf(snapshot: Snapshot) {
  const reference = site();
  reference.snapshot = structuredClone(snapshot);
  const result = await reference.build({ mode: 'full' });
  expect(result.ok).toBe(true);
  return { files: liveFiles(reference), artifacts: result.manifest!.artifacts };
}

type Change = (snapshot: Snapshot) => void;

const item = (snapshot: Snapshot, id: string) => snapshot.items.find((i) => i.id === id)!;
const setFields =
  (id: string, fields: Record<string, unknown>, updatedAt?: string): Change =>
  (s) => {
    item(s, id).fields = { ...item(s, id).fields, ...fields };
    if (updatedAt) item(s, id).updatedAt = updatedAt;
  };

/** A copy of `snapshot` with the changes applied. */
function changed(snapshot: Snapshot, ...changes: Change[]): Snapshot {
  const copy = structuredClone(snapshot);
  for (const change of changes) change(copy);
  return copy;
}

// the release built ahead: an edited post (its listings, tag page and search shard) and a new one
const release: Change[] = [
  setFields('post:graph-gardening', { title: 'Graph Gardening, Scheduled' }, '2026-03-01T09:00:00Z'),
  (s) => {
    s.items.push({
      id: 'post:scheduled',
      type: 'post',
      fields: { title: 'Scheduled Post', date: '2026-03-01', body: 'Out **on time**.' },
      publishedEnvs: ['prod'],
    });
    s.edges.push({ from: 'post:scheduled', edge: 'TAGGED', to: 'tag:graphs' });
  },
];
// edits after it went live, one of them to the post the release edited
const afterRelease: Change[] = [
  setFields('post:graph-gardening', { body: 'Rewritten after the release.' }),
  setFields('tag:web', { name: 'Webby' }),
];
// edits to the live site while the release waits (not in the release)
const meanwhile: Change[] = [
  setFields('post:hello-world', { title: 'Hello Again' }, '2026-02-20T10:00:00Z'),
  setFields('tag:graphs', { name: 'Graph Theory' }),
];

/**
 * Builds on one site as the server does: each build on the same warm pool (and its cache);
 * with `fresh`, each with a new snapshot object and a new target object (the cache recognises
 * versions by their manifest head). Counts the live manifests read in full.
 */
function builder(fixture: Fixture, pool: RenderPool, fresh: boolean) {
  let manifestReads = 0;
  const targetOf = (): DeployTarget => {
    const target = fresh ? createDirectoryTarget({ root: join(fixture.root, 'site') }) : fixture.target;
    const read = target.liveManifest.bind(target);
    return {
      ...target,
      liveManifest: () => {
        manifestReads++;
        return read();
      },
    };
  };
  return {
    target: targetOf,
    build: (snapshot: Snapshot, options: { mode?: 'full' | 'incremental'; activate?: boolean } = {}) =>
      fixture.build({
        source: fresh ? structuredClone(snapshot) : snapshot,
        target: targetOf(),
        pool,
        mode: options.mode ?? 'incremental',
        ...(options.activate === undefined ? {} : { activate: options.activate }),
      }),
    reads: () => manifestReads,
  };
}

describe.each([
  { variant: 'the same objects', fresh: false },
  { variant: 'a new snapshot and target for every build', fresh: true },
])('a version built ahead on a warm pool ($variant)', ({ fresh }) => {
  it('is complete but not live; once activated, the next incremental build equals a full build', async () => {
    const pool = new RenderPool({ size: 2 });
    try {
      const fixture = site();
      const run = builder(fixture, pool, fresh);
      const a = fixture.snapshot;
      const first = await run.build(a, { mode: 'full' });
      expect(first.ok).toBe(true);
      expect(first.live).toBe(true);
      const liveBefore = liveFiles(fixture);

      const b = changed(a, ...release);
      const ahead = await run.build(b, { activate: false });
      expect(ahead.ok).toBe(true);
      expect(ahead.live).toBe(false);
      expect(ahead.effectiveMode).toBe('incremental');
      expect(ahead.carried).toBeGreaterThan(0);
      // counted against the live version, as a live build counts
      expect(ahead.deploy).toMatchObject({ ok: true, filesDeleted: 0, serveCheck: null });
      expect(ahead.deploy!.filesUploaded).toBeGreaterThan(0);
      // the live version is untouched
      expect(run.target().liveBuildId!()).toBe(first.buildId);
      expect(readlinkSync(join(fixture.root, 'site', 'current'))).toBe(join('versions', first.buildId));
      expect(liveFiles(fixture)).toEqual(liveBefore);
      expect((await run.target().liveManifest())?.buildId).toBe(first.buildId);
      // the version built ahead holds every file of a full build of its content, carried ones too
      const fullB = await fullBuildOf(b);
      expect(versionFiles(fixture, ahead.buildId)).toEqual(fullB.files);
      expect(ahead.manifest!.artifacts).toEqual(fullB.artifacts);

      expect(await activateVersion({ target: run.target(), buildId: ahead.buildId })).toEqual({
        buildId: ahead.buildId,
        previousBuildId: first.buildId,
      });
      expect(liveFiles(fixture)).toEqual(fullB.files);
      const liveManifest = (await createDirectoryTarget({
        root: join(fixture.root, 'site'),
      }).liveManifest())!;
      expect(liveManifest.buildId).toBe(ahead.buildId);
      expect(liveManifest.artifacts).toEqual(ahead.manifest!.artifacts);

      const readsBefore = run.reads();
      const c = changed(b, ...afterRelease);
      const next = await run.build(c);
      expect(next.ok).toBe(true);
      expect(next.live).toBe(true);
      expect(next.effectiveMode).toBe('incremental');
      const fullC = await fullBuildOf(c);
      expect(liveFiles(fixture)).toEqual(fullC.files);
      expect(next.manifest!.artifacts).toEqual(fullC.artifacts);
      // it built on the state the cache kept for the version built ahead: no manifest read again
      expect(run.reads()).toBe(readsBefore);
      expect(next.rendered).toBeLessThan(first.rendered);
    } finally {
      await pool.close();
    }
  });

  it('leaves the live build state alone: abandoned, the next live build equals a full build', async () => {
    const pool = new RenderPool({ size: 2 });
    try {
      const fixture = site();
      const run = builder(fixture, pool, fresh);
      const a = fixture.snapshot;
      expect((await run.build(a, { mode: 'full' })).ok).toBe(true);
      const b = changed(a, ...release);
      const ahead = await run.build(b, { activate: false });
      expect(ahead.ok).toBe(true);

      // B is never activated: the live site moves on from A
      const c = changed(a, ...meanwhile);
      const readsBefore = run.reads();
      const live = await run.build(c);
      expect(live.ok).toBe(true);
      expect(live.effectiveMode).toBe('incremental');
      expect(run.target().liveBuildId!()).toBe(live.buildId);
      const fullC = await fullBuildOf(c);
      expect(liveFiles(fixture)).toEqual(fullC.files);
      expect(live.manifest!.artifacts).toEqual(fullC.artifacts);
      // the cache still described A: nothing read again
      expect(run.reads()).toBe(readsBefore);
      // B's version is untouched by the live build
      expect(versionFiles(fixture, ahead.buildId)).toEqual((await fullBuildOf(b)).files);

      // activated after all, later: the live build changed the state B was built on, so the
      // build after the switch compares every page (it reads B's manifest), and is exact
      await activateVersion({ target: run.target(), buildId: ahead.buildId });
      const d = changed(b, ...afterRelease);
      const after = await run.build(d);
      expect(after.effectiveMode).toBe('incremental');
      const fullD = await fullBuildOf(d);
      expect(liveFiles(fixture)).toEqual(fullD.files);
      expect(after.manifest!.artifacts).toEqual(fullD.artifacts);
      expect(run.reads()).toBe(readsBefore + 1);
    } finally {
      await pool.close();
    }
  });

  it('of two versions built ahead, builds on the one activated and forgets the other', async () => {
    const pool = new RenderPool({ size: 2 });
    try {
      const fixture = site();
      const run = builder(fixture, pool, fresh);
      const a = fixture.snapshot;
      expect((await run.build(a, { mode: 'full' })).ok).toBe(true);
      const b1 = changed(a, ...meanwhile);
      const b2 = changed(a, ...release);
      const ahead1 = await run.build(b1, { activate: false });
      const ahead2 = await run.build(b2, { activate: false });
      expect([ahead1.ok, ahead2.ok, ahead1.live, ahead2.live]).toEqual([true, true, false, false]);
      expect(versionFiles(fixture, ahead1.buildId)).toEqual((await fullBuildOf(b1)).files);
      expect(versionFiles(fixture, ahead2.buildId)).toEqual((await fullBuildOf(b2)).files);

      await activateVersion({ target: run.target(), buildId: ahead2.buildId });
      const readsBefore = run.reads();
      const c = changed(b2, ...afterRelease);
      const next = await run.build(c);
      expect(next.effectiveMode).toBe('incremental');
      const fullC = await fullBuildOf(c);
      expect(liveFiles(fixture)).toEqual(fullC.files);
      expect(next.manifest!.artifacts).toEqual(fullC.artifacts);
      expect(run.reads()).toBe(readsBefore);
      // B1 was built on the state B2's switch changed: it cannot be made any more
      expect([...pool.cache.prebuilt.keys()]).toEqual([]);

      // switching to B1 now is still served exactly, by comparing every page
      await activateVersion({ target: run.target(), buildId: ahead1.buildId });
      const d = changed(b1, ...afterRelease);
      const later = await run.build(d);
      const fullD = await fullBuildOf(d);
      expect(liveFiles(fixture)).toEqual(fullD.files);
      expect(later.manifest!.artifacts).toEqual(fullD.artifacts);
      expect(run.reads()).toBe(readsBefore + 1);
    } finally {
      await pool.close();
    }
  });
});

describe('building ahead', () => {
  it('does not probe the serve check URL of a version that is not live', async () => {
    let hits = 0;
    const server = createServer((_request, response) => {
      hits++;
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const fixture = site();
      const ahead = await fixture.build({ mode: 'full', activate: false, serveCheckUrl: url });
      expect(ahead.ok).toBe(true);
      expect(ahead.live).toBe(false);
      expect(ahead.deploy?.serveCheck).toBeNull();
      expect(hits).toBe(0);
      // nothing was live: still nothing is
      expect(existsSync(join(fixture.root, 'site', 'current'))).toBe(false);
      await activateVersion({ target: fixture.target, buildId: ahead.buildId });
      expect(await fixture.readFile('/blog/hello-world/')).toContain('Hello World');

      const live = await fixture.build({ mode: 'incremental', serveCheckUrl: url });
      expect(live.live).toBe(true);
      expect(live.deploy?.serveCheck).toMatchObject({ ok: true, status: 200 });
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('is refused on a target that keeps no versions, before anything is written', async () => {
    const dir = tempDir('ahead-folder');
    const fixture = site();
    await expect(
      build({
        source: fixture.snapshot,
        target: createFolderTarget({ dir }),
        mode: 'full',
        workers: 0,
        activate: false,
      }),
    ).rejects.toMatchObject({
      code: 'invalid_deploy_options',
      message: expect.stringMatching(/deploy target `folder` .*activate: false/),
    });
    expect(readdirSync(dir)).toEqual([]);
    // a target that knows nothing of building ahead (it would go live at commit) is refused too
    const folder = createFolderTarget({ dir });
    const unaware: DeployTarget = {
      ...folder,
      name: 'unaware',
      open: ({ buildId }) => folder.open({ buildId }),
    };
    await expect(
      build({ source: fixture.snapshot, target: unaware, mode: 'full', workers: 0, activate: false }),
    ).rejects.toMatchObject({
      code: 'invalid_deploy_options',
      message: expect.stringMatching(/deploy target `unaware` .*activate: false/),
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps a failed version out of the versions and the live one live', async () => {
    const fixture = site();
    const first = await fixture.build({ mode: 'full' });
    const broken = structuredClone(fixture.snapshot);
    broken.templates.find((t) => t.name === 'post')!.content = '{% if %}';
    const failed = await fixture.build({ source: broken, mode: 'incremental', activate: false });
    expect(failed.ok).toBe(false);
    expect(failed.live).toBe(false);
    expect(failed.deploy).toBeNull();
    expect((await fixture.target.versions!()).map((v) => v.buildId)).toEqual([first.buildId]);
    expect(fixture.target.liveBuildId!()).toBe(first.buildId);
  });

  it('keeps at most a few versions built ahead, and makes the state of one only on the state it was built on', () => {
    const cache = new BuildCache();
    const stateOf = (buildId: string) => ({ manifest: { buildId, createdAt: 't' } }) as unknown as BuildState;
    let made = 0;
    const entryOf = (buildId: string, base: BuildState | null) => ({
      manifest: { buildId, createdAt: 't' } as BuildManifest,
      base,
      make: () => {
        made++;
        return stateOf(buildId);
      },
    });
    const ids = Array.from({ length: MAX_PREBUILT_STATES + 2 }, (_, n) => `b${n}`);
    for (const id of ids) keepPrebuilt(cache, entryOf(id, null));
    expect([...cache.prebuilt.keys()]).toEqual(ids.slice(2));
    cache.clear();
    expect(cache.prebuilt.size).toBe(0);

    const live = stateOf('a');
    cache.state = live;
    keepPrebuilt(cache, entryOf('b1', live));
    keepPrebuilt(cache, entryOf('b2', live));
    keepPrebuilt(cache, entryOf('b3', null));
    // another version's head, or the same id made at another time: nothing is made
    expect(takePrebuilt(cache, { buildId: 'b9', createdAt: 't' })).toBeNull();
    expect(takePrebuilt(cache, { buildId: 'b1', createdAt: 'other' })).toBeNull();
    expect(made).toBe(0);
    // b2 is made on the live state; b1, built on that state too, cannot be made any more
    expect(takePrebuilt(cache, { buildId: 'b2', createdAt: 't' })?.manifest.buildId).toBe('b2');
    expect(cache.state?.manifest.buildId).toBe('b2');
    expect(made).toBe(1);
    expect([...cache.prebuilt.keys()]).toEqual(['b3']);
    // a version with a state of its own can be made whatever the state
    expect(takePrebuilt(cache, { buildId: 'b3', createdAt: 't' })?.manifest.buildId).toBe('b3');
    expect(made).toBe(2);
  });
});
