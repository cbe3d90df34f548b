import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const invitation = {
  id: 'invite:0123456789ab',
  siteId: 'site:blog',
  email: 'ada@example.org',
  name: 'Ada',
  role: 'editor',
  invitedBy: 'user:sam',
  createdAt: '2026-05-01T09:00:00.000Z',
  expiresAt: '2026-05-08T09:00:00.000Z',
};
const member = {
  userId: 'user:ada',
  email: 'ada@example.org',
  name: 'Ada',
  role: 'editor',
  siteId: 'site:blog',
  grantedBy: 'user:sam',
};

describe('cms members find', () => {
  it('lists matching users with their role on the site', async () => {
    const server = await t.serve({
      'GET /api/access/users': () => ({
        body: {
          items: [
            { userId: 'user:ada', name: 'Ada', email: 'ada@example.org', role: null },
            { userId: 'user:adam', name: 'Adam', email: 'adam@example.org', role: 'viewer' },
          ],
          total: 5,
        },
      }),
    });
    const result = await t.cli(['members', 'find', 'ada', '--limit', '2']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/USER ID\s+NAME\s+EMAIL\s+ROLE\n/);
    expect(result.stdout).toMatch(/user:adam\s+Adam\s+adam@example.org\s+viewer\n/);
    expect(result.stdout).toContain('2 of 5; narrow the query');
    expect(server.hits('GET /api/access/users')[0]!.url).toBe('/api/access/users?q=ada&limit=2');
  });
});

describe('cms members invite', () => {
  it('sends the invitation and prints the token once, with how to redeem it', async () => {
    const server = await t.serve({
      'POST /api/access/invitations': () => ({
        status: 201,
        body: { ...invitation, token: `ti_0123456789ab_${'x'.repeat(43)}` },
      }),
    });
    const result = await t.cli([
      'members',
      'invite',
      'ada@example.org',
      'editor',
      '--name',
      'Ada',
      '--expires',
      '2026-05-03T00:00:00Z',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Invited ada@example.org as editor on site:blog (invite:0123456789ab)');
    expect(result.stdout).toContain(
      `Token (shown once; send it to the invitee): ti_0123456789ab_${'x'.repeat(43)}`,
    );
    expect(result.stdout).toContain('cms members accept <token>');
    expect(server.hits('POST /api/access/invitations')[0]!.body).toEqual({
      email: 'ada@example.org',
      role: 'editor',
      name: 'Ada',
      expiresAt: '2026-05-03T00:00:00.000Z',
    });
  });

  it('refuses a role that cannot be given before calling', async () => {
    const server = await t.serve({});
    const result = await t.cli(['members', 'invite', 'ada@example.org', 'owner']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('role must be');
    expect(server.requests).toHaveLength(0);
  });

  it('lists and cancels open invitations', async () => {
    const server = await t.serve({
      'GET /api/access/invitations': () => ({ body: [invitation] }),
      'DELETE /api/access/invitations/invite%3A0123456789ab': () => ({ status: 204 }),
    });
    expect((await t.cli(['members', 'invitations'])).stdout).toMatch(
      /invite:0123456789ab\s+ada@example.org\s+editor\s+user:sam/,
    );
    const cancelled = await t.cli(['members', 'cancel-invite', 'invite:0123456789ab']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe('Cancelled invitation invite:0123456789ab.\n');
    expect(server.hits('DELETE /api/access/invitations/invite%3A0123456789ab')).toHaveLength(1);
  });
});

describe('cms members accept', () => {
  it('redeems a token without a site and prints the new key once', async () => {
    const apiKey = {
      id: 'key:feedfacecafe',
      name: 'invitation to site:blog',
      role: 'editor',
      siteId: 'site:blog',
      allowedSites: ['site:blog'],
      prefix: 'tk_feedfacecafe',
      createdAt: '2026-05-01T09:00:00.000Z',
      secret: `tk_feedfacecafe_${'s'.repeat(43)}`,
    };
    const server = await t.serve({
      'POST /api/auth/invitations/accept': () => ({ body: { ok: true, member, apiKey } }),
    });
    const result = await t.cli(['members', 'accept', 'ti_0123456789ab_token']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('user:ada is now editor on site:blog.');
    expect(result.stdout).toContain(`Secret (shown once, store it now): ${apiKey.secret}`);
    const hit = server.hits('POST /api/auth/invitations/accept')[0]!;
    expect(hit.body).toEqual({ token: 'ti_0123456789ab_token' });
    expect(hit.headers['x-site-id']).toBeUndefined();
  });
});
