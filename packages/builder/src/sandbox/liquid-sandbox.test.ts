import { describe, expect, it } from 'vitest';
import { assertTemplateParsesInWorker } from '../liquid/assert-template';
import { checkTemplateInWorker } from './check-template-in-worker';
import { LiquidSandbox, SandboxStoppedError } from './liquid-sandbox';

describe('checkTemplateInWorker', () => {
  it('reports problems with line and column, and nothing for a good template', async () => {
    expect(await checkTemplateInWorker('<h1>{{ item.title | upcase }}</h1>')).toBeNull();
    expect(await checkTemplateInWorker('line one\n{{ item.title | nope }}')).toMatchObject({
      message: expect.stringContaining('nope'),
      line: 2,
    });
    await expect(assertTemplateParsesInWorker('{% if %}')).rejects.toMatchObject({
      code: 'invalid_template',
      status: 400,
    });
  });

  it('gives up on a template that parses too long, without holding this thread', async () => {
    // liquidjs parses in time quadratic in the number of tags: this one took 19 s in this thread
    const hostile = '{% if a %}x{% endif %}'.repeat(45_000);
    // the worker is loaded first, so the deadline measures the parse alone
    await checkTemplateInWorker('warm');
    let maxGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 10);
    const started = performance.now();
    const problem = await checkTemplateInWorker(hostile, { timeoutMs: 500 });
    const tookMs = performance.now() - started;
    clearInterval(ticker);
    expect(problem?.message).toMatch(/could not be checked: the check job ran past its 500 ms/);
    expect(tookMs).toBeLessThan(3000);
    expect(maxGap).toBeLessThan(300);
    // the next check gets a new worker
    expect(await checkTemplateInWorker('{{ ok }}')).toBeNull();
  });
});

describe('LiquidSandbox', () => {
  it('refuses an input too large for its heap before sending it (receiving it could end the process)', async () => {
    const sandbox = new LiquidSandbox({ memoryMb: 32 });
    try {
      const failure = await sandbox
        .run(
          { type: 'transforms', snapshotJson: 'x'.repeat(9_000_000), env: 'dev', limits: {} },
          { timeoutMs: 60_000 },
        )
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(SandboxStoppedError);
      expect((failure as Error).message).toContain('too large for the sandbox');
    } finally {
      await sandbox.close();
    }
  });

  it('stops a worker that runs out of its heap and starts a new one for the next job', async () => {
    const sandbox = new LiquidSandbox({ memoryMb: 32 });
    try {
      // Under a quarter of the heap as text; many small objects once parsed and transformed.
      const huge = JSON.stringify({
        format: 'trellis-snapshot',
        site: { id: 'site:x', name: 'x', slug: 'x', graphName: 'x' },
        types: [],
        items: Array.from({ length: 160_000 }, (_, i) => ({ id: `a:${i}`, type: 'a', fields: { t: 'x' } })),
        templates: [],
        transforms: [{ id: 't', kind: 'set-field', field: 'u', value: '{{ item.t }}{{ item.id }}' }],
      });
      expect(huge.length).toBeLessThan(8_000_000);
      const failure = await sandbox
        .run({ type: 'transforms', snapshotJson: huge, env: 'dev', limits: {} }, { timeoutMs: 60_000 })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(SandboxStoppedError);
      expect((failure as Error).message).toMatch(/out of memory|crashed|exited/);
      expect(await sandbox.run({ type: 'check', content: '{{ a }}' }, { timeoutMs: 60_000 })).toBeNull();
    } finally {
      await sandbox.close();
    }
  });
});
