import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const dev = { id: 'env:dev', name: 'dev', order: 0, autoBuild: true, requiresApproval: false };
const prod = {
  id: 'env:prod',
  name: 'prod',
  order: 10,
  autoBuild: false,
  requiresApproval: true,
  publicUrlOverride: 'https://www.example.org',
};

describe('cms envs', () => {
  it('lists the environments', async () => {
    await t.serve({ 'GET /api/releases/environments': () => ({ body: [dev, prod] }) });
    const result = await t.cli(['envs', 'list']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ID\s+NAME\s+ORDER\s+AUTO BUILD\s+REQUIRES APPROVAL\s+PUBLIC URL\n/);
    expect(result.stdout).toMatch(/env:prod\s+prod\s+10\s+false\s+true\s+https:\/\/www.example.org\n/);
  });

  it('changes only the given settings of an environment (the server replaces it whole)', async () => {
    const server = await t.serve({
      'GET /api/releases/environments': () => ({ body: [dev, prod] }),
      'PUT /api/releases/environments/env%3Aprod': ({ body }) => ({ body: { ...prod, ...(body as object) } }),
    });
    const result = await t.cli(['envs', 'set', 'prod', '--auto-build', '--no-public-url']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Updated env:prod.');
    expect(server.hits('PUT /api/releases/environments/env%3Aprod')[0]?.body).toEqual({
      name: 'prod',
      order: 10,
      autoBuild: true,
      requiresApproval: true,
      publicUrlOverride: null,
    });
  });

  it('creates a new environment from the given settings', async () => {
    const server = await t.serve({
      'GET /api/releases/environments': () => ({ body: [dev, prod] }),
      'PUT /api/releases/environments/env%3Astaging': () => ({
        body: { id: 'env:staging', name: 'Staging', order: 5, autoBuild: false, requiresApproval: true },
      }),
    });
    const result = await t.cli([
      'envs',
      'set',
      'env:staging',
      '--label',
      'Staging',
      '--order',
      '5',
      '--requires-approval',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Created env:staging.');
    expect(server.hits('PUT /api/releases/environments/env%3Astaging')[0]?.body).toEqual({
      name: 'Staging',
      order: 5,
      requiresApproval: true,
    });
  });
});

describe('cms envs delete', () => {
  it('deletes an environment given by name', async () => {
    const server = await t.serve({
      'DELETE /api/releases/environments/env%3Astaging': () => ({ status: 204 }),
    });
    const result = await t.cli(['envs', 'delete', 'staging']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Deleted env:staging.\n');
    expect(server.requests).toHaveLength(1);
  });
});
