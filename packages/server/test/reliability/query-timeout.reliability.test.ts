import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiOk, createBlogSite, type ServerProcess, startServer } from './harness';

/**
 * The query budget (issue 16 item 9): with `MAX_QUERY_TIMEOUT_MS=1`, every request working on a
 * site graph answers 504 `query_timeout` — content lists, imports, exports and builds, not only
 * the diagnostics routes. The site is filled by a server with the default budget, then the same
 * data is served by one with a 1 ms budget.
 */

const POSTS = 5_000;

let server: ServerProcess | undefined;
let site: { id: string } | undefined;
let dataDir: string | undefined;

beforeAll(async () => {
  const filler = await startServer();
  dataDir = filler.dataDir;
  site = await createBlogSite(filler, { slug: 'budget' });
  const records = Array.from({ length: POSTS }, (_, i) => ({
    title: `p${i}`,
    body: `text ${i} `.repeat(20),
  }));
  await apiOk(filler, 'POST', '/api/import/json', {
    site: site.id,
    body: { typeName: 'post', records, batchSize: 500 },
    expected: 200,
  });
  // keep the data: the next server serves it
  await filler.kill('SIGTERM');
  server = await startServer({ MAX_QUERY_TIMEOUT_MS: '1' }, { dataDir });
}, 300_000);

afterAll(async () => {
  await server?.kill('SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the query budget', () => {
  it('answers 504 query_timeout for content lists, imports, exports and builds past MAX_QUERY_TIMEOUT_MS', async () => {
    const cases: Array<[string, string, unknown?]> = [
      // a list that sorts every post by a field (a scan of 5,000 rows)
      ['GET', '/api/content/post?sort=-body&limit=5'],
      [
        'POST',
        '/api/import/json',
        { typeName: 'post', records: Array.from({ length: 200 }, (_, i) => ({ title: `late-${i}` })) },
      ],
      ['GET', '/api/export'],
      ['POST', '/api/build?env=dev', {}],
      ['POST', '/api/build?env=dev&dryRun=1', {}],
    ];
    const answers = [];
    for (const [method, path, body] of cases) {
      const answer = await api(server!, method, path, { site: site!.id, body });
      answers.push(`${method} ${path}: ${answer.status}`);
      expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 200)}`).toBe(504);
      expect(answer.body).toMatchObject({ code: 'query_timeout' });
    }
    console.info(`[query budget] ${answers.join('; ')}`);
    // health makes no engine call and answers
    const health = await api(server!, 'GET', '/api/health', { key: null });
    expect(health.status).toBe(200);
  });
});
