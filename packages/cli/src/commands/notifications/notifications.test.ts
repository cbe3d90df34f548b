import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const notification = {
  id: 'ntf_01',
  siteId: 'site:blog',
  type: 'build.failed',
  eventId: 'evt_01',
  title: 'Build b1 (prod) failed',
  data: { buildId: 'b1' },
  createdAt: '2026-06-01T10:00:00.000Z',
  readAt: null,
};

describe('cms notifications', () => {
  it('list shows unread ones marked, without a site header', async () => {
    const server = await t.serve({
      'GET /api/notifications': () => ({ body: [notification], headers: { 'x-total-count': '1' } }),
    });
    const result = await t.cli(['notifications', 'list', '--unread']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\*\s+ntf_01\s+site:blog\s+build.failed\s+Build b1 \(prod\) failed/);
    const sent = server.hits('GET /api/notifications')[0]!;
    expect(sent.url).toBe('/api/notifications?unread=true');
    expect(sent.headers['x-site-id']).toBeUndefined();
  });

  it('read marks one, or all with --all, and needs one of them', async () => {
    const server = await t.serve({
      'POST /api/notifications/ntf_01/read': () => ({
        body: { ...notification, readAt: '2026-06-01T11:00:00.000Z' },
      }),
      'POST /api/notifications/read-all': () => ({ body: { ok: true, marked: 3 } }),
    });
    expect((await t.cli(['notifications', 'read', 'ntf_01'])).stdout).toContain('Marked ntf_01 read.');
    expect((await t.cli(['notifications', 'read', '--all'])).stdout).toContain(
      'Marked 3 notifications read.',
    );
    const neither = await t.cli(['notifications', 'read']);
    expect(neither.code).not.toBe(0);
    expect(server.requests).toHaveLength(2);
  });
});
