import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-leads-');
const lead = {
  id: 'lead:0b6f',
  name: 'Ada',
  email: 'ada@example.test',
  message: 'Hello',
  fields: {},
  pageUrl: 'https://acme.example/contact/',
  origin: 'https://acme.example',
  createdAt: '2026-11-25T10:00:00.000Z',
};

describe('cms leads', () => {
  it('lists a page of leads with the total, exports CSV to a file or stdout, and deletes one', async () => {
    const server = await t.serve({
      'GET /api/leads': () => ({ body: [lead], headers: { 'x-total-count': '7' } }),
      'GET /api/leads.csv': () => ({ body: 'id,name\r\nlead:0b6f,Ada\r\n' }),
      'DELETE /api/leads/lead%3A0b6f': () => ({ status: 204 }),
    });
    const listed = await t.cli(['leads', 'list', '--limit', '1']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('ada@example.test');
    expect(listed.stdout).toContain('1 of 7 lead(s).');
    expect(server.hits('GET /api/leads')[0]?.url).toBe('/api/leads?limit=1');
    expect(server.hits('GET /api/leads')[0]?.headers['x-site-id']).toBe('site:blog');

    const saved = await t.cli(['leads', 'export', 'leads.csv']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain('Exported 1 lead(s) of site:blog');
    expect(await readFile(join(t.dir, 'leads.csv'), 'utf8')).toBe('id,name\r\nlead:0b6f,Ada\r\n');
    expect((await t.cli(['leads', 'export'])).stdout).toBe('id,name\r\nlead:0b6f,Ada\r\n');

    const removed = await t.cli(['leads', 'rm', 'lead:0b6f']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(server.hits('DELETE /api/leads/lead%3A0b6f')).toHaveLength(1);
  });
});
