import { describe, expect, it } from 'vitest';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import { SnapshotSource } from '../source/snapshot-source';
import { ListIndex } from './list-index';
import { type BuildPlan, planArtifacts, type RouteMemo, replan } from './plan-artifacts';

function snapshotOf(items: SnapshotItem[], edges: Snapshot['edges'] = []): Snapshot {
  return {
    format: 'trellis-snapshot',
    version: 1,
    site: { name: 'Test' } as Snapshot['site'],
    types: [
      { name: 'post', routePattern: '/p/{slug}/', fields: [] },
      {
        name: 'section',
        routePattern: '/{parent.slug}/{slug}/',
        relationships: [{ name: 'parent', edgeLabel: 'IN', target: 'post', kind: 'many-to-one' }],
        fields: [],
      },
    ] as unknown as Snapshot['types'],
    items,
    edges,
    templates: [
      { name: 'post', content: 'x', boundType: 'post', enabled: true, version: 1 },
      { name: 'section', content: 'x', boundType: 'section', enabled: true, version: 1 },
      { name: 'list', content: 'x', boundType: '', enabled: true, version: 1 },
    ],
    routes: [
      {
        path: '/featured/',
        template: 'list',
        paginate: { type: 'post', size: 2, sort: '-rank', where: 'featured == true' },
      },
    ],
  };
}

const posts = (): SnapshotItem[] =>
  Array.from({ length: 4 }, (_, n) => ({
    id: `post:p${n}`,
    type: 'post',
    fields: { slug: `p${n}`, rank: n, featured: true },
  }));

/** Plans `before`, applies `edit` to a copy, and returns what replan and planArtifacts make of it. */
function planAfter(edit: (items: SnapshotItem[]) => void, edges: Snapshot['edges'] = []) {
  const memo: RouteMemo = new Map();
  const items = [...posts(), { id: 'section:s', type: 'section', fields: { slug: 's' } }];
  const before = snapshotOf(items, edges);
  const beforeSource = new SnapshotSource({ snapshot: before });
  const previous: BuildPlan = planArtifacts({
    snapshot: before,
    source: beforeSource,
    env: 'dev',
    lists: new ListIndex({ source: beforeSource }),
    routes: memo,
  });
  const after = snapshotOf(
    items.map((item) => ({ ...item, fields: { ...item.fields } })),
    edges,
  );
  edit(after.items);
  const changed = new Set(
    after.items.filter((item, n) => JSON.stringify(item) !== JSON.stringify(items[n])).map((i) => i.id),
  );
  const changedTypes = new Set(after.items.filter((i) => changed.has(i.id)).map((i) => i.type));
  const source = new SnapshotSource({ snapshot: after });
  const lists = new ListIndex({ source, changed, changedTypes });
  const reused = replan({ previous, snapshot: after, source, lists, routes: memo, changed, changedTypes });
  const fresh = planArtifacts({ snapshot: after, source, env: 'dev', lists, routes: memo });
  return { previous, reused, fresh };
}

describe('replan', () => {
  it("reuses the previous plan when it is this build's plan, and only then", () => {
    const same = (plan: BuildPlan) => ({
      artifacts: plan.artifacts,
      urls: plan.urls,
      errors: plan.errors,
      warnings: plan.warnings,
    });
    // a field no route reads; an item leaving the listing with its page count unchanged (4 → 3 of 2 a page)
    for (const edit of [
      (items: SnapshotItem[]) => void Object.assign(items[1]!.fields, { title: 'New' }),
      (items: SnapshotItem[]) => void Object.assign(items[2]!.fields, { featured: false }),
      (items: SnapshotItem[]) => void Object.assign(items[3]!.fields, { rank: -1 }),
    ]) {
      const { previous, reused, fresh } = planAfter(edit);
      expect(reused).toBe(previous);
      expect(same(fresh)).toEqual(same(previous));
    }
    const edges = [{ from: 'section:s', edge: 'IN', to: 'post:p0' }];
    for (const edit of [
      // a page moves
      (items: SnapshotItem[]) => void Object.assign(items[1]!.fields, { slug: 'moved' }),
      // the listing loses a page (4 → 2)
      (items: SnapshotItem[]) => {
        Object.assign(items[2]!.fields, { featured: false });
        Object.assign(items[3]!.fields, { featured: false });
      },
    ]) {
      const { reused, fresh, previous } = planAfter(edit);
      expect(reused).toBeNull();
      expect(fresh.artifacts).not.toEqual(previous.artifacts);
    }
    // the parent of another item's route: its edit may move the child, so plan again
    const parentEdit = planAfter((items) => void Object.assign(items[0]!.fields, { title: 'Parent' }), edges);
    expect(parentEdit.reused).toBeNull();
    // the child itself, with its parent unchanged: reused
    const childEdit = planAfter((items) => void Object.assign(items[4]!.fields, { title: 'Child' }), edges);
    expect(childEdit.reused).toBe(childEdit.previous);
    expect(childEdit.fresh.urls).toEqual(childEdit.previous.urls);
  });
});
