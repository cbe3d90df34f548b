import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-export-');
const snapshot = {
  format: 'trellis-snapshot',
  version: 1,
  site: {
    id: 'site:blog',
    name: 'Blog',
    slug: 'blog',
    graphName: 'g-1',
    createdAt: '2026-11-22T03:00:00.000Z',
  },
  types: [],
  items: [],
  edges: [],
  templates: [],
  transforms: [],
  routes: [],
  views: [],
  exportedAt: '2026-11-25T10:00:00.000Z',
};

describe('cms export (backup)', () => {
  it('writes the snapshot to a file and summarises it; to stdout without one', async () => {
    await t.serve({ 'GET /api/export': () => ({ body: snapshot }) });
    const saved = await t.cli(['backup', 'out/blog.json']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain('Exported site:blog to');
    expect(saved.stdout).toContain('0 type(s), 0 item(s), 0 edge(s), 0 template(s), 0 route(s).');
    expect(JSON.parse(await readFile(join(t.dir, 'out', 'blog.json'), 'utf8'))).toEqual(snapshot);
    const piped = await t.cli(['export']);
    expect(JSON.parse(piped.stdout)).toEqual(snapshot);
  });
});
