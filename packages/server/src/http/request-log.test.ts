import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureLogs } from '../../test/helpers/capture-logs';
import { loadConfig } from '../config';
import { buildApp } from './app';

/** The request lines (`incoming request`, `request completed`, `request errored`) of one run. */
async function requestLines(mode: string) {
  const logs = captureLogs();
  const dataDir = await mkdtemp(join(tmpdir(), 'trellis-reqlog-'));
  const app = await buildApp({
    config: loadConfig({
      CMS_DATA_DIR: dataDir,
      CMS_REQUEST_LOG: mode,
      LOG_LEVEL: 'info',
      CMS_SCHEDULER: '0',
    }),
    logStream: logs.stream,
  });
  // A route that fails in a way no handler expects: a 500.
  app.get('/api/__boom', { config: { siteScope: 'none', public: true } }, async () => {
    throw new Error('boom');
  });
  try {
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/sites' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/__boom' })).statusCode).toBe(500);
  } finally {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  return logs
    .lines()
    .filter((line) => ['incoming request', 'request completed', 'request errored'].includes(String(line.msg)))
    .map((line) =>
      `${line.level} ${line.msg} ${(line.res as { statusCode?: number } | undefined)?.statusCode ?? ''}`.trim(),
    );
}

describe('CMS_REQUEST_LOG', () => {
  it('all: every request comes in and completes at info', async () => {
    const lines = await requestLines('all');
    expect(lines).toEqual(
      expect.arrayContaining([
        'info incoming request',
        'info request completed 200',
        'info request completed 401',
        'error request completed 500',
      ]),
    );
  });

  it('errors: only requests answered 400 or above', async () => {
    const lines = await requestLines('errors');
    expect(lines).toEqual(['info request completed 401', 'error request completed 500']);
  });

  it('off: no request lines but for answers of 500 and above', async () => {
    expect(await requestLines('off')).toEqual(['error request completed 500']);
  });
});
