import { afterAll, describe, expect, it } from 'vitest';
import { LiquidSandbox } from './liquid-sandbox';
import { runScriptInWorker } from './run-script-in-worker';
import { loadScriptRunner } from './script-runner';

describe('loadScriptRunner (QuickJS)', () => {
  it('gives the script its input and returns what it returns, with its console lines', async () => {
    const run = await loadScriptRunner();
    const outcome = run({
      name: 'upper',
      source: 'console.log("saw", item.id); return { fields: { title: item.fields.title.toUpperCase() } };',
      input: { event: 'beforeSave', item: { id: 'post:a', fields: { title: 'hello' } } },
    });
    expect(outcome).toMatchObject({
      status: 'ok',
      value: { fields: { title: 'HELLO' } },
      logs: ['saw post:a'],
    });
    expect(run({ name: 'nothing', source: 'const x = 1;', input: {} })).toMatchObject({
      status: 'ok',
      value: null,
    });
  });

  it('reports a refusal with the script’s own message, thrown or returned, and a syntax error', async () => {
    const run = await loadScriptRunner();
    expect(run({ name: 'v', source: 'throw new Error("title is required")', input: {} })).toMatchObject({
      status: 'rejected',
      message: 'title is required',
    });
    expect(run({ name: 'v', source: 'return { error: "too short" }', input: {} })).toMatchObject({
      status: 'rejected',
      message: 'too short',
    });
    expect(run({ name: 'v', source: 'return (', input: {} })).toMatchObject({
      status: 'rejected',
      message: expect.stringMatching(/^SyntaxError/),
    });
  });

  it('has no host access: no require, process, fetch, timers or file system', async () => {
    const run = await loadScriptRunner();
    const outcome = run({
      name: 'probe',
      source:
        'return [typeof require, typeof process, typeof fetch, typeof setTimeout, typeof std, typeof os, typeof __json].join(",")',
      input: {},
    });
    expect(outcome).toMatchObject({
      status: 'ok',
      value: 'undefined,undefined,undefined,undefined,undefined,undefined,undefined',
    });
  });

  it('stops a loop without end at its time limit, even one that catches', async () => {
    const run = await loadScriptRunner();
    const outcome = run({
      name: 'spin',
      source: 'for (;;) { try { while (true) {} } catch (e) {} }',
      input: {},
      timeoutMs: 200,
    });
    expect(outcome).toMatchObject({
      status: 'stopped',
      reason: 'timeout',
      message: 'script "spin" was stopped: it ran past its time limit of 200 ms (a loop without end?)',
    });
    // generous: the limit is 200 ms, a busy machine adds to it
    expect(outcome.durationMs).toBeLessThan(5000);
  });

  it('stops an allocation bomb at its memory limit, and a recursion without end at its stack', async () => {
    const run = await loadScriptRunner();
    const bomb = run({
      name: 'bomb',
      source: 'const keep = []; for (;;) keep.push({ a: [1, 2, 3], b: "x" + keep.length });',
      input: {},
      memoryMb: 8,
      timeoutMs: 60_000,
    });
    expect(bomb).toMatchObject({
      status: 'stopped',
      reason: 'memory',
      message: 'script "bomb" was stopped: it ran out of its memory limit of 8 MB',
    });
    const deep = run({ name: 'deep', source: 'function f() { return f() + 1 } return f()', input: {} });
    expect(deep).toMatchObject({ status: 'stopped', reason: 'stack' });
    // the runner is still usable after both
    expect(run({ name: 'ok', source: 'return 1 + 1', input: {} })).toMatchObject({ status: 'ok', value: 2 });
  });
});

describe('runScriptInWorker', () => {
  const sandbox = new LiquidSandbox({ memoryMb: 128 });
  afterAll(() => sandbox.close());

  it('runs a looping script off this thread, which keeps running its timers', async () => {
    // the worker is loaded first, so the measure is of the script alone
    expect(await runScriptInWorker({ name: 'warm', source: 'return 1', input: {} }, sandbox)).toMatchObject({
      status: 'ok',
      value: 1,
    });
    let maxGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 10);
    const outcome = await runScriptInWorker(
      { name: 'spin', source: 'while (true) {}', input: {}, timeoutMs: 1000 },
      sandbox,
    );
    clearInterval(ticker);
    expect(outcome).toMatchObject({
      status: 'stopped',
      reason: 'timeout',
      message: expect.stringMatching(/^script "spin" was stopped/),
    });
    // the loop held the worker for a second; this thread was never blocked for long
    expect(maxGap).toBeLessThan(500);
  });
});
