import { describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import type { WriteSession } from '../deploy/types';
import { detectChanges } from './detect-changes';
import { emit } from './emit';
import { load } from './load';
import { settingsOf } from './options';
import { plan } from './plan';
import { selectWork } from './select-work';

/** The emit stage's inputs for the blog fixture (a build without a target or cache). */
async function emitInputs() {
  const snapshot = readFixtureSnapshot('blog');
  const settings = settingsOf({ source: snapshot, mode: 'validate', workers: 0 });
  const content = await load({ source: snapshot, env: settings.env, mediaBaseUrl: settings.mediaBaseUrl });
  const changes = await detectChanges(settings, content);
  const planned = plan({ env: settings.env, content, changes });
  const selection = selectWork({ settings, content, changes, planned });
  return { content, plan: planned.plan, changes, planned, selection, cache: null };
}

/** A session that records what is written to it. */
function recordingSession() {
  const written = new Map<string, string>();
  const session: WriteSession = {
    writeFile: async (path, data) => {
      written.set(path, typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
    },
    carry: async () => {},
    commit: async () => ({ bucket: 'test', keyPrefix: '' }),
    abort: async () => {},
  };
  return { session, written };
}

describe('the emit stage', () => {
  it('writes each file through the session as it is made and keeps no content, the same bytes as without', async () => {
    const kept = await emit(await emitInputs());
    expect(kept.extras.length).toBeGreaterThan(3);
    expect(kept.extras.every((extra) => typeof extra.content === 'string')).toBe(true);

    const { session, written } = recordingSession();
    const streamed = await emit({ ...(await emitInputs()), session });
    expect(streamed.extras.map((extra) => extra.file)).toEqual(kept.extras.map((extra) => extra.file));
    for (const [i, extra] of streamed.extras.entries()) {
      const before = kept.extras[i]!;
      expect(extra.content).toBeNull();
      expect(written.get(extra.file)).toBe(before.content);
      expect(extra.bytes).toBe(Buffer.byteLength(before.content!));
      expect(extra.hash).toBe(before.hash);
    }
    expect(written.size).toBe(streamed.extras.length);
  });

  it('keeps no search documents for a build without a cache', async () => {
    const emitted = await emit(await emitInputs());
    expect(emitted.search).toBeNull();
    expect(emitted.extras.some((extra) => extra.file.startsWith('search/index-'))).toBe(true);
  });

  it('lets the event loop run while it emits', async () => {
    let ticks = 0;
    const emitting = emit(await emitInputs());
    const counting = (async () => {
      let done = false;
      void emitting.then(() => {
        done = true;
      });
      while (!done) {
        await new Promise((resolve) => setImmediate(resolve));
        ticks++;
      }
    })();
    await Promise.all([emitting, counting]);
    // the sitemap and each search shard yield once at least
    expect(ticks).toBeGreaterThan(1);
  });
});
