import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { startResponsivenessProbe } from '../../../test/helpers/responsiveness';

// A large import must leave the API responsive (issue 16, item 4): its work yields to the event
// loop every few milliseconds (shared/cooperative-yield.ts), so other requests are answered
// between its slices and load shedding never sees a blocked loop. Before, an import ran from the
// parsed body to its answer without letting the loop run: these 20,000 records held it for
// 2.3 s of wall time, 1.1 s of it CPU (2-core machine, load average 11), and load shedding then
// answered 503 to every other client.
//
// The bounds hold on a busy 2-core machine (load average over 10 while measuring): the longest
// CPU-time block under 200 ms (measured 74 ms, most of it parsing the 6 MB body; before: 1.1 s),
// the longest wall-clock block under 1 s (measured 118–430 ms, commits waiting on the disk and
// the process waiting for a core; before: 2.3–4.4 s), probes answered all through the import,
// and not one 503 with load shedding at its production setting.

let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite({
    // load shedding as in production (the test helper turns it off)
    env: { LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '1000', LOAD_SHED_SAMPLE_INTERVAL_MS: '1000' },
  });
  // starting the app may have blocked the loop past the shedding threshold: on a busy machine the
  // first requests can be shed (503 overloaded), which is load shedding working, not this test's
  // subject, so the type is created once the loop is calm
  await waitForCalm();
  await site.createType({
    name: 'note',
    label: 'Note',
    nodeLabel: 'Note',
    keyField: 'slug',
    fields: [
      { name: 'slug', type: 'string', required: true },
      { name: 'title', type: 'string' },
      { name: 'code', type: 'string', unique: true },
      { name: 'body', type: 'text' },
    ],
  });
});
/** Waits (up to a minute by time) until a request is answered rather than shed. */
async function waitForCalm(): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if ((await site.request({ method: 'GET', url: '/api/types' })).statusCode === 200) return;
    if (Date.now() > until)
      throw new Error('the loop never became calm: every request was shed for a minute');
  }
}
afterEach(async () => {
  await site.close();
});

describe('a large import', () => {
  it('yields to the event loop: other requests are answered all along and never shed', async () => {
    const count = 20_000;
    const records = Array.from({ length: count }, (_, i) => ({
      slug: `note-${i}`,
      title: `Note ${i}`,
      code: `c${i}`,
      body: 'lorem ipsum dolor sit amet '.repeat(8),
    }));
    // serialized beforehand: a client's work, not the server's
    const payload = JSON.stringify({ typeName: 'note', records, batchSize: 500 });
    // start from a calm loop: creating the type may have blocked it
    await waitForCalm();
    const health = startResponsivenessProbe({
      request: () => site.platform.app.inject({ method: 'GET', url: '/api/health' }),
    });
    const types = startResponsivenessProbe({
      request: () => site.request({ method: 'GET', url: '/api/types' }),
    });
    const started = performance.now();
    const res = await site.request({
      method: 'POST',
      url: '/api/import/json',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    const tookMs = Math.round(performance.now() - started);
    const [healthReport, typesReport] = await Promise.all([health.stop(), types.stop()]);
    const summary = {
      tookMs,
      maxBlockMs: healthReport.maxBlockMs,
      maxCpuBlockMs: healthReport.maxCpuBlockMs,
      health: {
        count: healthReport.count,
        p99: healthReport.p99Ms,
        max: healthReport.maxMs,
        statuses: healthReport.statuses,
      },
      types: {
        count: typesReport.count,
        p99: typesReport.p99Ms,
        max: typesReport.maxMs,
        statuses: typesReport.statuses,
      },
    };
    console.log(`import of ${count} records: ${JSON.stringify(summary)}`);
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, created: count });
    expect(healthReport.maxCpuBlockMs).toBeLessThan(200);
    expect(healthReport.maxBlockMs).toBeLessThan(1000);
    // answered all along: a probe every 10 ms when the loop runs, so at least one per 250 ms
    // even when each request waits for a core (at load 20 on 2 cores a types request took 118 ms
    // on average); the import that never yielded answered one in its 2.3 s
    expect(healthReport.count).toBeGreaterThan(tookMs / 250);
    expect(typesReport.count).toBeGreaterThan(tookMs / 250);
    expect(healthReport.statuses).toEqual({ 200: healthReport.count });
    expect(typesReport.statuses).toEqual({ 200: typesReport.count });
  });
});
