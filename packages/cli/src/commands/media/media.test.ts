import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-media-');
const SHA = 'a'.repeat(64);
const asset = {
  ok: true,
  id: `asset:${SHA}`,
  url: `/media/assets/${SHA}.png`,
  sha256: SHA,
  filename: 'cover.png',
  mimetype: 'image/png',
  bytes: 2048,
  uploadedBy: 'user:owner',
  uploadedAt: '2026-11-25T10:00:00.000Z',
};

describe('cms media', () => {
  it('uploads a file as multipart with its name, lists and counts assets', async () => {
    const server = await t.serve({
      'POST /api/media/upload': () => ({ status: 201, body: asset }),
      'GET /api/media': ({ url }) =>
        url.includes('countOnly=1') ? { body: { total: 1 } } : { body: [asset] },
    });
    await writeFile(join(t.dir, 'cover.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const uploaded = await t.cli(['media', 'upload', 'cover.png']);
    expect(uploaded.code, uploaded.stderr).toBe(0);
    expect(uploaded.stdout).toBe(`asset:${SHA}  /media/assets/${SHA}.png  cover.png\n`);
    const request = server.hits('POST /api/media/upload')[0]!;
    expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(String(request.body)).toContain('filename="cover.png"');

    const list = await t.cli(['media', 'list', '--q', 'cov']);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID +FILENAME +MIMETYPE +SIZE +URL +UPLOADED AT$/);
    expect(list.stdout).toContain('2.0 KB');
    expect(server.hits('GET /api/media')[0]?.url).toBe('/api/media?q=cov');
    expect((await t.cli(['media', 'list', '--count'])).stdout).toBe('1 asset(s).\n');
  });

  it('refuses a file that cannot be read, exit 2, before calling the server', async () => {
    const server = await t.serve({});
    const result = await t.cli(['media', 'upload', 'missing.png']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Cannot read missing.png');
    expect(server.requests).toEqual([]);
  });

  it('deletes an asset, with --cascade when asked', async () => {
    const server = await t.serve({ [`DELETE /api/media/asset%3A${SHA}`]: () => ({ status: 204 }) });
    expect((await t.cli(['media', 'rm', `asset:${SHA}`])).stdout).toBe(`Deleted asset:${SHA}.\n`);
    expect((await t.cli(['media', 'rm', `asset:${SHA}`, '--cascade'])).code).toBe(0);
    expect(server.requests.map((request) => request.url)).toEqual([
      `/api/media/asset%3A${SHA}`,
      `/api/media/asset%3A${SHA}?cascade=1`,
    ]);
  });
  it('searches stock photos (stock search, and stock "<query>" as before) and imports one with its credit', async () => {
    const item = {
      id: '2014422',
      url: 'https://images.pexels.com/photos/2014422/a.jpeg',
      thumb: 'https://images.pexels.com/photos/2014422/a-s.jpeg',
      photographer: 'Joey Farina',
      source: 'pexels',
      width: 3024,
      height: 3024,
    };
    const server = await t.serve({
      'GET /api/media/stock': () => ({ body: { items: [item], page: 2, perPage: 5, total: 8000 } }),
      'POST /api/media/stock/import': () => ({
        status: 201,
        body: {
          ...asset,
          credit: {
            provider: 'pexels',
            id: '2014422',
            photographer: 'Joey Farina',
            photographerUrl: 'https://www.pexels.com/@joey',
            pageUrl: 'https://www.pexels.com/photo/2014422/',
            license: 'Pexels License',
          },
        },
      }),
    });
    const search = await t.cli([
      'media',
      'stock',
      'search',
      'nature',
      '--provider',
      'pexels',
      '--page',
      '2',
      '--per-page',
      '5',
    ]);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toContain('2014422');
    expect(search.stdout).toContain('page 2 of 8000 result(s)');
    expect(server.hits('GET /api/media/stock')[0]?.url).toBe(
      '/api/media/stock?provider=pexels&q=nature&page=2&perPage=5',
    );
    const legacy = await t.cli(['media', 'stock', 'lake', '--orientation', 'portrait']);
    expect(legacy.code, legacy.stderr).toBe(0);
    expect(server.hits('GET /api/media/stock')[1]?.url).toBe(
      '/api/media/stock?provider=pexels&q=lake&orientation=portrait',
    );

    const imported = await t.cli([
      'media',
      'stock',
      'import',
      'pexels',
      '2014422',
      '--filename',
      'rocks.jpg',
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`asset:${SHA}`);
    expect(imported.stdout).toContain(
      'credit: Joey Farina on pexels (https://www.pexels.com/photo/2014422/), Pexels License',
    );
    expect(server.hits('POST /api/media/stock/import')[0]!.body).toEqual({
      provider: 'pexels',
      id: '2014422',
      filename: 'rocks.jpg',
    });
    expect((await t.cli(['media', 'stock', 'import', 'flickr', '1'])).code).toBe(2);
  });
});
