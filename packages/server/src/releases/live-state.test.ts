import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { applyLiveChanges, readLive } from './live-state';

let site: ContentTestSite;

beforeEach(async () => {
  site = await createContentTestSite({ slug: 'live' });
});
afterEach(async () => {
  await site.close();
});

const targets = (count: number, version: number) =>
  Array.from({ length: count }, (_, i) => ({
    itemId: `post:p-${i}`,
    type: 'post',
    version,
    hash: `sha256:${version}-${i}`,
  }));

describe('readLive', () => {
  it('reads every item live in the environment (well past a thousand), and none of another', async () => {
    const at = new Date('2026-05-01T12:00:00.000Z');
    await site.graph.transaction(async (tx) => {
      await applyLiveChanges(tx, {
        envId: 'env:prod',
        targets: targets(2500, 2),
        cause: 'publish',
        actor: 't',
        at,
      });
      await applyLiveChanges(tx, {
        envId: 'env:staging',
        targets: targets(3, 1),
        cause: 'publish',
        actor: 't',
        at,
      });
    });
    // Take one down: it leaves the live state.
    await site.graph.transaction((tx) =>
      applyLiveChanges(tx, {
        envId: 'env:prod',
        targets: [{ itemId: 'post:p-7', version: null, hash: null }],
        cause: 'unpublish',
        actor: 't',
        at,
      }),
    );
    const prod = await readLive(site.graph, 'env:prod');
    expect(prod.size).toBe(2499);
    expect(prod.has('post:p-7')).toBe(false);
    expect(prod.get('post:p-2499')).toMatchObject({
      itemId: 'post:p-2499',
      version: 2,
      hash: 'sha256:2-2499',
    });
    const staging = await readLive(site.graph, 'env:staging');
    expect([...staging.keys()].sort()).toEqual(['post:p-0', 'post:p-1', 'post:p-2']);
    expect(staging.get('post:p-1')?.version).toBe(1);
  });
});
