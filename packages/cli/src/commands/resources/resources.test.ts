import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

describe('cms views|transforms|block-types|widgets|page-kits', () => {
  it('lists each namespace', async () => {
    await t.serve({
      'GET /api/views': () => ({
        body: [{ name: 'news', path: '/news/', template: 'list', paginate: { type: 'post' }, enabled: true }],
      }),
      'GET /api/page-kits': () => ({ body: [{ id: 'landing', name: 'Landing', blocks: [] }] }),
    });
    const views = await t.cli(['views', 'list']);
    expect(views.code, views.stderr).toBe(0);
    expect(views.stdout).toMatch(/^NAME\s+PATH\s+TEMPLATE\s+ENABLED\nnews\s+\/news\/\s+list\s+true\n$/);
    const kits = await t.cli(['page-kits', 'list', '--json']);
    expect(JSON.parse(kits.stdout)).toEqual([{ id: 'landing', name: 'Landing', blocks: [] }]);
  });

  it('deletes one of each, with --cascade where the namespace has one', async () => {
    const server = await t.serve({
      'DELETE /api/views/news': () => ({ status: 204 }),
      'DELETE /api/transforms/upper': () => ({ status: 204 }),
      'DELETE /api/block-types/hero': () => ({ status: 204 }),
      'DELETE /api/widgets/latest': () => ({ status: 204 }),
      'DELETE /api/page-kits/landing': () => ({ status: 204 }),
    });
    const runs = [
      ['views', 'delete', 'news', '--cascade'],
      ['transforms', 'delete', 'upper'],
      ['block-types', 'delete', 'hero'],
      ['widgets', 'delete', 'latest'],
      ['page-kits', 'delete', 'landing'],
    ];
    const outputs: string[] = [];
    for (const argv of runs) {
      const result = await t.cli(argv);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
      outputs.push(result.stdout.trim());
    }
    expect(outputs).toEqual([
      'Deleted view news.',
      'Deleted transform upper.',
      'Deleted block type hero.',
      'Deleted widget latest.',
      'Deleted page kit landing.',
    ]);
    expect(server.requests.map((request) => request.url)).toEqual([
      '/api/views/news?cascade=1',
      '/api/transforms/upper',
      '/api/block-types/hero',
      '/api/widgets/latest',
      '/api/page-kits/landing',
    ]);
  });

  it('offers --cascade only where the namespace has one', async () => {
    await t.serve({});
    const result = await t.cli(['block-types', 'delete', 'hero', '--cascade']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--cascade'");
  });
});
