import { describe, expect, it, vi } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import * as trackingReader from '../source/tracking-reader';
import { detectChanges } from './detect-changes';
import { load } from './load';
import { settingsOf } from './options';
import { plan } from './plan';

vi.mock('../source/tracking-reader', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../source/tracking-reader')>();
  return { ...actual, graphHashOf: vi.fn(actual.graphHashOf) };
});

describe('the plan stage', () => {
  it('makes the graph hash when it is first read (a full build reads it once its pages render), and once', async () => {
    const graphHashOf = vi.mocked(trackingReader.graphHashOf);
    const snapshot = readFixtureSnapshot('blog');
    const settings = settingsOf({ source: snapshot, mode: 'validate', workers: 0 });
    const content = await load({ source: snapshot, env: settings.env, mediaBaseUrl: settings.mediaBaseUrl });
    const changes = await detectChanges(settings, content);
    graphHashOf.mockClear();

    const planned = plan({ env: settings.env, content, changes });
    expect(planned.plan.artifacts.length).toBeGreaterThan(0);
    expect(graphHashOf).not.toHaveBeenCalled();

    const hash = planned.graphHash;
    expect(graphHashOf).toHaveBeenCalledTimes(1);
    expect(snapshot.edges.length).toBeGreaterThan(0);
    const actual =
      await vi.importActual<typeof import('../source/tracking-reader')>('../source/tracking-reader');
    expect(hash).toBe(actual.graphHashOf(content.source));
    expect(planned.graphHash).toBe(hash);
    expect(graphHashOf).toHaveBeenCalledTimes(1);
  });
});
