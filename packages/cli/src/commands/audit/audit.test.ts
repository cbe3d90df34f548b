import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const entry = (seq: number, extra: Record<string, unknown> = {}) => ({
  seq,
  ts: `2026-05-01T09:00:0${seq}.000Z`,
  actor: 'key:0123456789ab',
  actorName: 'ci (Ada)',
  action: 'content.update',
  target: 'post:hello',
  prevHash: '0'.repeat(64),
  hash: 'a'.repeat(64),
  ...extra,
});

describe('cms audit log', () => {
  it('prints who did what to which resource, when, and which entries of how many', async () => {
    const server = await t.serve({
      'GET /api/audit': () => ({
        body: {
          items: [entry(7), entry(6, { actor: 'system', actorName: null })],
          total: 12,
          limit: 2,
          offset: 4,
        },
      }),
    });
    const result = await t.cli([
      'audit',
      'log',
      '--actor',
      'user:ada',
      '--action',
      'content.*',
      '--target',
      'post:*',
      '--since',
      '2026-05-01T00:00:00Z',
      '--until',
      '2026-05-02T00:00:00+02:00',
      '--limit',
      '2',
      '--offset',
      '4',
      '--order',
      'asc',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^SEQ\s+TS\s+ACTOR\s+ACTION\s+TARGET\n/);
    expect(result.stdout).toMatch(
      /7\s+2026-05-01T09:00:07.000Z\s+key:0123456789ab \(ci \(Ada\)\)\s+content.update\s+post:hello\n/,
    );
    expect(result.stdout).toMatch(/6\s+2026-05-01T09:00:06.000Z\s+system\s+content.update/);
    expect(result.stdout).toContain('5–6 of 12');
    const url = new URL(server.hits('GET /api/audit')[0]!.url, 'http://x');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      actor: 'user:ada',
      action: 'content.*',
      target: 'post:*',
      since: '2026-05-01T00:00:00.000Z',
      until: '2026-05-01T22:00:00.000Z',
      limit: '2',
      offset: '4',
      order: 'asc',
    });
    expect(server.hits('GET /api/audit')[0]!.headers['x-site-id']).toBe('site:blog');
  });

  it('prints the page as JSON with --json, and refuses a bad time before calling', async () => {
    const page = { items: [entry(1)], total: 1, limit: 50, offset: 0 };
    const server = await t.serve({ 'GET /api/audit': () => ({ body: page }) });
    expect(JSON.parse((await t.cli(['audit', 'log', '--json'])).stdout)).toEqual(page);
    expect(server.hits('GET /api/audit')[0]!.url).toBe('/api/audit');
    const bad = await t.cli(['audit', 'log', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(server.hits('GET /api/audit')).toHaveLength(1);
  });
});

describe('cms audit verify', () => {
  it('says where a broken chain breaks and exits 1; an intact one exits 0', async () => {
    const broken = {
      graph: 'g-1',
      status: 'broken',
      records: 3,
      last_seq: 3,
      last_hash: 'a'.repeat(64),
      verified_at: '2026-05-01T09:00:00.000Z',
      reason: 'head anchored at seq 5 (platform store) but chain ends at 3: records were deleted',
      bad_seq: 4,
      anchored_seq: 5,
      legacy_through: 2,
    };
    let verdict: Record<string, unknown> = broken;
    const server = await t.serve({ 'GET /api/audit/verify': () => ({ body: verdict }) });
    const result = await t.cli(['audit', 'verify', '--graph', 'g-1']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout, result.stderr).toContain('audit chain of g-1: broken');
    expect(result.stdout).toContain('anchored head: seq 5');
    expect(result.stdout).toContain('written before keying: seq 1–2');
    expect(result.stdout).toContain('first bad seq: 4');
    expect(result.stdout).toContain('reason: head anchored at seq 5 (platform store) but chain ends at 3');
    verdict = { ...broken, status: 'ok', reason: null, bad_seq: null, legacy_through: 0 };
    const ok = await t.cli(['audit', 'verify', '--graph', 'g-1']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).not.toContain('first bad seq');
    expect(server.hits('GET /api/audit/verify')).toHaveLength(2);
  });
});

describe('cms audit checklist', () => {
  it("prints the site's verification checklist with word headers", async () => {
    const server = await t.serve({
      'GET /api/sites/site%3Ablog': () => ({
        body: {
          id: 'site:blog',
          name: 'Blog',
          slug: 'blog',
          graphName: 'g-1',
          createdAt: '2026-11-22T03:00:00.000Z',
        },
      }),
      'POST /api/audit/checklist': () => ({
        body: {
          rows: [
            { feature: 'audit-chain', status: 'ok', version: '1', last_verified_at: null, message: null },
          ],
        },
      }),
    });
    const result = await t.cli(['audit', 'checklist']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^FEATURE\s+STATUS\s+VERSION\s+LAST VERIFIED AT\s+MESSAGE\naudit-chain\s+ok\s+1\n$/,
    );
    expect(server.hits('POST /api/audit/checklist')[0]?.url).toBe('/api/audit/checklist?graph=g-1');
  });
});
