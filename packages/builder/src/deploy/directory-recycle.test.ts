import { existsSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { tempDir } from '../../test/temp-dir';
import { build } from '../build';
import { rollback } from '../rollback';
import type { Snapshot } from '../snapshot/types';
import { createDirectoryTarget, type DirectoryStep } from './directory-target';
import type { DeployTarget } from './types';

/**
 * Every entry under `dir`: folders (with a trailing `/`, so an empty folder left behind shows)
 * and files with their bytes (base64), sorted.
 */
function treeOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string, prefix: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) {
        out.push(`${prefix}${name}/`);
        walk(path, `${prefix}${name}/`);
      } else out.push(`${prefix}${name} ${readFileSync(path).toString('base64')}`);
    }
  };
  walk(dir, '');
  return out;
}

/** The blog fixture with a few more posts (more pages per folder, several listing pages). */
function siteSnapshot(): Snapshot {
  const snapshot = readFixtureSnapshot('blog');
  for (let n = 0; n < 24; n++) {
    snapshot.items.push({
      id: `post:extra-${n}`,
      type: 'post',
      fields: {
        title: `Extra ${n}`,
        date: `2025-03-${String((n % 28) + 1).padStart(2, '0')}`,
        body: `Body ${n}`,
      },
    });
    snapshot.edges.push({ from: `post:extra-${n}`, edge: 'TAGGED', to: n % 2 ? 'tag:web' : 'tag:graphs' });
  }
  return snapshot;
}

const item = (snapshot: Snapshot, id: string) => snapshot.items.find((i) => i.id === id)!;
const setFields = (snapshot: Snapshot, id: string, fields: Record<string, unknown>) => {
  const found = item(snapshot, id);
  found.fields = { ...found.fields, ...fields };
};

/** The spare folder under `root/versions`, if any. */
function spareIn(root: string): string | null {
  return readdirSync(join(root, 'versions')).find((name) => name.startsWith('.spare-')) ?? null;
}

/** A full build of `snapshot` into a fresh folder: the files a version of it must hold. */
async function reference(snapshot: Snapshot): Promise<string[]> {
  const root = tempDir('recycle-reference');
  const result = await build({
    source: structuredClone(snapshot),
    target: createDirectoryTarget({ root }),
    mode: 'full',
    workers: 1,
    buildId: 'reference',
  });
  expect(result.ok).toBe(true);
  return treeOf(join(root, 'current'));
}

type Step = { name: string; change: (snapshot: Snapshot) => void } | { name: string; rollbackTo: string };

const steps: Step[] = [
  { name: 'a body edited', change: (s) => setFields(s, 'post:extra-3', { body: 'Edited body.' }) },
  { name: 'a title shown in listings', change: (s) => setFields(s, 'post:hello-world', { title: 'Hi' }) },
  {
    name: 'an item deleted',
    change: (s) => {
      s.items = s.items.filter((i) => i.id !== 'post:extra-7');
      s.edges = s.edges.filter((e) => e.from !== 'post:extra-7');
    },
  },
  { name: 'another body edited', change: (s) => setFields(s, 'post:extra-11', { body: 'Again.' }) },
  { name: 'rolled back two builds', rollbackTo: 'b2' },
  { name: 'an edit after the rollback', change: (s) => setFields(s, 'post:extra-5', { body: 'After.' }) },
  {
    name: 'an item added',
    change: (s) => {
      s.items.push({ id: 'post:newer', type: 'post', fields: { title: 'Newer', date: '2026-06-01' } });
    },
  },
  { name: 'a slug change (a page moves)', change: (s) => setFields(s, 'post:newer', { slug: 'newest' }) },
  {
    name: 'a tag deleted (its page folder goes)',
    change: (s) => {
      s.items = s.items.filter((i) => i.id !== 'tag:web');
      s.edges = s.edges.filter((e) => e.to !== 'tag:web');
    },
  },
  { name: 'a body edited again', change: (s) => setFields(s, 'post:extra-3', { body: 'Third body.' }) },
  { name: 'rolled back one build', rollbackTo: 'previous' },
  { name: 'a last edit', change: (s) => setFields(s, 'post:extra-20', { title: 'Extra twenty' }) },
];

describe('directory target: recycled version folders', () => {
  it.each([
    { keep: 1, fresh: false },
    { keep: 2, fresh: true },
  ])(
    'keeps every version equal to a full build of its content, with prune keeping $keep (fresh target each build: $fresh)',
    async ({ keep, fresh }) => {
      const root = tempDir('recycle');
      let target: DeployTarget = createDirectoryTarget({ root });
      const targetNow = () => {
        if (fresh) target = createDirectoryTarget({ root });
        return target;
      };
      let snapshot = siteSnapshot();
      // each version's files when it was made, and the content it was made from
      const versions = new Map<string, { tree: string[]; snapshot: Snapshot }>();
      const full = await build({ source: snapshot, target, mode: 'full', workers: 1, buildId: 'b1' });
      expect(full.ok).toBe(true);
      versions.set('b1', { tree: treeOf(join(root, 'current')), snapshot: structuredClone(snapshot) });
      let recycled = 0;
      let n = 1;
      let previous = 'b1';
      for (const step of steps) {
        if ('rollbackTo' in step) {
          const to = step.rollbackTo === 'previous' ? previous : step.rollbackTo;
          const kept = (await targetNow().versions!()).map((v) => v.buildId);
          if (!kept.includes(to)) continue; // pruned at this retention
          const live = targetNow().liveBuildId!()!;
          await rollback({ target: targetNow(), buildId: to });
          previous = live;
          snapshot = structuredClone(versions.get(to)!.snapshot);
          expect(treeOf(join(root, 'current')), step.name).toEqual(versions.get(to)!.tree);
          continue;
        }
        step.change(snapshot);
        const buildId = `b${++n}`;
        const spare = spareIn(root);
        const spareInode = spare ? statSync(join(root, 'versions', spare)).ino : null;
        const live = targetNow().liveBuildId!()!;
        const result = await build({
          source: structuredClone(snapshot),
          target: targetNow(),
          mode: 'incremental',
          workers: 1,
          buildId,
        });
        expect(result.ok, step.name).toBe(true);
        expect(result.effectiveMode, step.name).toBe('incremental');
        previous = live;
        if (spareInode !== null) {
          // the spare folder became the new version (renamed, not copied)
          expect(statSync(join(root, 'versions', buildId)).ino, step.name).toBe(spareInode);
          expect(spareIn(root), step.name).toBeNull();
          recycled++;
        }
        const tree = treeOf(join(root, 'current'));
        expect(tree, step.name).toEqual(await reference(snapshot));
        versions.set(buildId, { tree, snapshot: structuredClone(snapshot) });
        // every version still holds exactly what it held when it was made (the one live before
        // this build included: a recycled folder shares files with it), before and after the prune
        const unchanged = async (when: string) => {
          for (const version of await targetNow().versions!())
            expect(
              treeOf(join(root, 'versions', version.buildId)),
              `${step.name}, ${when}: ${version.buildId}`,
            ).toEqual(versions.get(version.buildId)!.tree);
        };
        await unchanged('before the prune');
        await targetNow().prune!({ keep });
        await unchanged('after the prune');
      }
      expect(recycled).toBeGreaterThan(0);
      // nothing but versions, the spare and their manifests is left
      const names = readdirSync(join(root, 'versions'));
      expect(names.filter((name) => name.startsWith('.') && !name.startsWith('.spare-'))).toEqual([]);
    },
  );
});

describe('directory target: a crash between steps', () => {
  const at: DirectoryStep[] = [
    'open:spare-compared',
    'open:spare-taken',
    'commit:stale-removed',
    'commit:manifest-written',
    'commit:version-renamed',
    'prune:manifest-moved',
    'prune:spare-moved',
  ];

  it.each(at)('leaves the live version served and the next build whole (failing at %s)', async (failAt) => {
    const root = tempDir('recycle-crash');
    let armed = false;
    const crashing = createDirectoryTarget({
      root,
      hooks: {
        step: (name) => {
          if (armed && name === failAt) throw new Error(`crash at ${name}`);
        },
      },
    });
    const snapshot = siteSnapshot();
    const run = (target: DeployTarget, buildId: string, mode: 'full' | 'incremental' = 'incremental') =>
      build({ source: structuredClone(snapshot), target, mode, workers: 1, buildId });
    expect((await run(crashing, 'b1', 'full')).ok).toBe(true);
    setFields(snapshot, 'post:extra-1', { body: 'One.' });
    expect((await run(crashing, 'b2')).ok).toBe(true);
    const liveBefore = snapshot;
    const treeBefore = treeOf(join(root, 'current'));
    armed = true;
    const edited = structuredClone(snapshot);
    setFields(edited, 'post:extra-2', { body: 'Two.' });
    if (failAt.startsWith('prune:')) {
      // b1 is pruned: the step fails while it is being made the spare
      await expect(crashing.prune!({ keep: 1 })).rejects.toThrow(`crash at ${failAt}`);
    } else {
      await crashing.prune!({ keep: 1 });
      expect(spareIn(root)).not.toBeNull();
      await expect(
        build({
          source: structuredClone(edited),
          target: crashing,
          mode: 'incremental',
          workers: 1,
          buildId: 'b3',
        }),
      ).rejects.toThrow(`crash at ${failAt}`);
    }
    // The live version is still served, complete and unchanged.
    expect(treeOf(join(root, 'current'))).toEqual(treeBefore);
    expect(treeBefore).toEqual(await reference(liveBefore));

    // After a restart (a fresh target, no hooks), builds and prunes go on and stay whole.
    const restarted = createDirectoryTarget({ root });
    const again = await build({
      source: structuredClone(edited),
      target: restarted,
      mode: 'incremental',
      workers: 1,
      buildId: 'b4',
    });
    expect(again.ok).toBe(true);
    expect(treeOf(join(root, 'current'))).toEqual(await reference(edited));
    await restarted.prune!({ keep: 1 });
    const next = structuredClone(edited);
    setFields(next, 'post:extra-4', { body: 'Four.' });
    expect(
      (await build({ source: next, target: restarted, mode: 'incremental', workers: 1, buildId: 'b5' })).ok,
    ).toBe(true);
    expect(treeOf(join(root, 'current'))).toEqual(await reference(next));
    await restarted.prune!({ keep: 1 });
    // What the crash left (a trash folder, a spare manifest without its folder) is swept away;
    // only a staging folder of a build that never ended may stay (its id is never reused).
    const left = readdirSync(join(root, 'versions')).filter(
      (name) => name.startsWith('.') && !name.startsWith('.spare-') && !name.startsWith('.staging-b3'),
    );
    expect(left).toEqual([]);
    const spares = readdirSync(join(root, 'manifests')).filter((name) => name.startsWith('.spare-'));
    for (const name of spares) expect(existsSync(join(root, 'versions', name.slice(0, -5)))).toBe(true);
  });

  it('never lets two sessions take the same spare', async () => {
    const root = tempDir('recycle-race');
    const target = createDirectoryTarget({ root });
    const snapshot = siteSnapshot();
    expect((await build({ source: snapshot, target, mode: 'full', workers: 1, buildId: 'b1' })).ok).toBe(
      true,
    );
    setFields(snapshot, 'post:extra-1', { body: 'One.' });
    expect(
      (await build({ source: snapshot, target, mode: 'incremental', workers: 1, buildId: 'b2' })).ok,
    ).toBe(true);
    await target.prune!({ keep: 1 });
    const spare = spareIn(root)!;
    const [a, b] = await Promise.all([target.open({ buildId: 'x1' }), target.open({ buildId: 'x2' })]);
    const staged = ['x1', 'x2'].filter(
      (id) => readdirSync(join(root, 'versions', `.staging-${id}`)).length > 0,
    );
    expect(staged).toHaveLength(1);
    expect(existsSync(join(root, 'versions', spare))).toBe(false);
    await a.abort();
    await b.abort();
    // renaming a folder over a taken spare fails: nothing else holds its name
    expect(() => renameSync(join(root, 'versions', spare), join(root, 'x'))).toThrow();
  });
});
