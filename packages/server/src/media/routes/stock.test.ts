import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

/**
 * The stock adapters against recorded answers of Pexels, Unsplash and Pixabay (their own
 * formats, __fixtures__/stock), served on 127.0.0.1 with the providers' hosts rewritten to it.
 */
const FIXTURES = join(import.meta.dirname, '../__fixtures__/stock');

/** A 3×2 PNG: the bytes a photo download answers. */
const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEElEQVR4nGM4kWIEQQxwFgBVoAg1rtvKGQAAAABJRU5ErkJggg==',
  'base64',
);

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

let server: Server;
let origin: string;
let seen: Seen[];
/** A path answered with this status and body instead of its fixture, once. */
let override: { path: string; status: number; body: string } | null;
let site: ContentTestSite;

function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8')
    .replaceAll('https://api.pexels.com/v1', `${origin}/pexels/v1`)
    .replaceAll('https://images.pexels.com/', `${origin}/img/pexels/`)
    .replaceAll('https://api.unsplash.com', `${origin}/unsplash`)
    .replaceAll('https://images.unsplash.com/', `${origin}/img/unsplash/`)
    .replaceAll('https://pixabay.com/get/', `${origin}/img/pixabay/`);
}

function route(pathname: string, query: URLSearchParams): { status: number; body: string | Buffer } {
  if (pathname === '/pexels/v1/search') return { status: 200, body: fixture('pexels-search.json') };
  if (pathname === '/pexels/v1/photos/2014422') return { status: 200, body: fixture('pexels-photo.json') };
  if (pathname === '/unsplash/search/photos') return { status: 200, body: fixture('unsplash-search.json') };
  if (pathname === '/unsplash/photos/eOLpJytrbsQ')
    return { status: 200, body: fixture('unsplash-photo.json') };
  if (pathname === '/unsplash/photos/eOLpJytrbsQ/download')
    return { status: 200, body: fixture('unsplash-download.json') };
  if (pathname === '/pixabay/api/' && query.get('id') === '195893')
    return { status: 200, body: fixture('pixabay-photo.json') };
  if (pathname === '/pixabay/api/' && query.get('id'))
    return { status: 200, body: JSON.stringify({ total: 0, totalHits: 0, hits: [] }) };
  if (pathname === '/pixabay/api/') return { status: 200, body: fixture('pixabay-search.json') };
  if (pathname.startsWith('/img/')) return { status: 200, body: PHOTO };
  return { status: 404, body: JSON.stringify({ error: 'Not found' }) };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://x');
    const answer =
      override && override.path === url.pathname
        ? { status: override.status, body: override.body }
        : route(url.pathname, url.searchParams);
    const image = Buffer.isBuffer(answer.body);
    res.writeHead(answer.status, { 'content-type': image ? 'image/png' : 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  origin = `http://127.0.0.1:${port}`;
  site = await createContentTestSite({
    slug: 'stock-adapters',
    env: {
      PEXELS_API_KEY: 'pexels-key',
      PEXELS_URL: `${origin}/pexels/v1`,
      UNSPLASH_ACCESS_KEY: 'unsplash-key',
      UNSPLASH_URL: `${origin}/unsplash`,
      PIXABAY_API_KEY: 'pixabay-key',
      PIXABAY_URL: `${origin}/pixabay/api`,
      // The photo files' host comes from the providers' answers: it must be allowed (as a public host would be).
      CMS_OUTBOUND_ALLOW: `127.0.0.1:${port}`,
    },
  });
});

afterAll(async () => {
  await site?.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
  override = null;
});

describe('GET /api/media/stock against each provider', () => {
  it('asks Pexels with its key in Authorization and its paging parameters, normalising photos', async () => {
    const res = await site.request({
      method: 'GET',
      url: '/api/media/stock?provider=pexels&q=nature&orientation=square&page=1&perPage=2',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ page: 1, perPage: 2, total: 8000 });
    expect(body.items).toHaveLength(2);
    expect(body.items[0]).toEqual({
      id: '2014422',
      url: `${origin}/img/pexels/photos/2014422/pexels-photo-2014422.jpeg?auto=compress&cs=tinysrgb&dpr=2&h=650&w=940`,
      thumb: `${origin}/img/pexels/photos/2014422/pexels-photo-2014422.jpeg?auto=compress&cs=tinysrgb&h=350`,
      photographer: 'Joey Farina',
      photographerUrl: 'https://www.pexels.com/@joey',
      pageUrl: 'https://www.pexels.com/photo/brown-rocks-during-golden-hour-2014422/',
      alt: 'Brown Rocks During Golden Hour',
      source: 'pexels',
      width: 3024,
      height: 3024,
    });
    expect(seen).toHaveLength(1);
    const asked = new URL(seen[0]!.url, origin);
    expect(asked.pathname).toBe('/pexels/v1/search');
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      query: 'nature',
      page: '1',
      per_page: '2',
      orientation: 'square',
    });
    expect(seen[0]!.headers.authorization).toBe('pexels-key');
  });

  it('asks Unsplash with Client-ID and Accept-Version, orientation square as squarish', async () => {
    const res = await site.request({
      method: 'GET',
      url: '/api/media/stock?provider=unsplash&q=mountain&orientation=square&page=3&perPage=50',
    });
    expect(res.statusCode, res.body).toBe(200);
    // Unsplash pages hold at most 30.
    expect(res.json()).toMatchObject({ page: 3, perPage: 30, total: 133 });
    expect(res.json().items).toEqual([
      {
        id: 'eOLpJytrbsQ',
        url: expect.stringMatching(
          new RegExp(`^${origin}/img/unsplash/photo-1416339306562-f3d12fefd36f\\?.*w=1080$`),
        ),
        thumb: expect.stringMatching(/w=400$/),
        photographer: 'Jeff Sheldon',
        photographerUrl: 'https://unsplash.com/@ugmonk',
        pageUrl: 'https://unsplash.com/photos/a-man-standing-on-top-of-a-mountain-eOLpJytrbsQ',
        alt: 'man standing on mountain top during daytime',
        source: 'unsplash',
        width: 4000,
        height: 3000,
      },
    ]);
    const asked = new URL(seen[0]!.url, origin);
    expect(asked.pathname).toBe('/unsplash/search/photos');
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      query: 'mountain',
      page: '3',
      per_page: '30',
      orientation: 'squarish',
    });
    expect(seen[0]!.headers.authorization).toBe('Client-ID unsplash-key');
    expect(seen[0]!.headers['accept-version']).toBe('v1');
  });

  it('asks Pixabay with its key as a query parameter (at least 3 per page), keeping perPage hits', async () => {
    const res = await site.request({
      method: 'GET',
      url: '/api/media/stock?provider=pixabay&q=flower&orientation=landscape&perPage=2',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ page: 1, perPage: 2, total: 500 });
    expect(body.items.map((item: { id: string }) => item.id)).toEqual(['195893', '73424']);
    expect(body.items[0]).toEqual({
      id: '195893',
      url: `${origin}/img/pixabay/ed6a99fd0a76647_1280.jpg`,
      thumb: `${origin}/img/pixabay/35bbf209e13e39d2_640.jpg`,
      photographer: 'Josch13',
      photographerUrl: 'https://pixabay.com/users/Josch13-48777/',
      pageUrl: 'https://pixabay.com/en/blossom-bloom-flower-195893/',
      alt: 'blossom, bloom, flower',
      source: 'pixabay',
      width: 4000,
      height: 2250,
    });
    const asked = new URL(seen[0]!.url, origin);
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      key: 'pixabay-key',
      q: 'flower',
      image_type: 'photo',
      safesearch: 'true',
      page: '1',
      per_page: '3',
      orientation: 'horizontal',
    });
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it("answers 502 stock_provider_unavailable with the provider's message when it refuses", async () => {
    override = { path: '/pexels/v1/search', status: 401, body: JSON.stringify({ error: 'Invalid API key' }) };
    const res = await site.request({ method: 'GET', url: '/api/media/stock?provider=pexels&q=x' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'stock_provider_unavailable',
      error: expect.stringContaining('Invalid API key'),
      hint: expect.stringContaining('PEXELS_API_KEY'),
    });
    override = { path: '/pixabay/api/', status: 400, body: '[ERROR 400] "per_page" is out of valid range.' };
    const pixabay = await site.request({ method: 'GET', url: '/api/media/stock?provider=pixabay&q=x' });
    expect(pixabay.statusCode).toBe(502);
    expect(pixabay.json().error).toContain('per_page');
    override = { path: '/unsplash/search/photos', status: 200, body: JSON.stringify({ photos: [] }) };
    const odd = await site.request({ method: 'GET', url: '/api/media/stock?provider=unsplash&q=x' });
    expect(odd.statusCode).toBe(502);
    expect(odd.json().error).toContain('unexpected shape');
  });
});

describe('POST /api/media/stock/import', () => {
  const importPhoto = (payload: Record<string, unknown>) =>
    site.request({ method: 'POST', url: '/api/media/stock/import', payload });

  it('stores a Pexels photo (its original file) with its credit, served from /media/assets', async () => {
    const res = await importPhoto({ provider: 'pexels', id: '2014422' });
    expect(res.statusCode, res.body).toBe(201);
    const asset = res.json();
    expect(asset).toMatchObject({
      filename: 'pexels-2014422.jpg',
      mimetype: 'image/png',
      bytes: PHOTO.length,
      width: 3,
      height: 2,
      credit: {
        provider: 'pexels',
        id: '2014422',
        photographer: 'Joey Farina',
        photographerUrl: 'https://www.pexels.com/@joey',
        pageUrl: 'https://www.pexels.com/photo/brown-rocks-during-golden-hour-2014422/',
        license: expect.stringContaining('Pexels License'),
      },
    });
    expect(seen.map((request) => new URL(request.url, origin).pathname)).toEqual([
      '/pexels/v1/photos/2014422',
      '/img/pexels/photos/2014422/pexels-photo-2014422.jpeg',
    ]);
    const file = await site.platform.app.inject({ method: 'GET', url: asset.url });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(PHOTO)).toBe(true);
    // The listing shows the credit too.
    const listed = await site.request({ method: 'GET', url: '/api/media' });
    expect(listed.json().find((a: { id: string }) => a.id === asset.id).credit.photographer).toBe(
      'Joey Farina',
    );
  });

  it('tells Unsplash of the download (download_location) and stores the file it names', async () => {
    const res = await importPhoto({ provider: 'unsplash', id: 'eOLpJytrbsQ', filename: 'summit.jpg' });
    // The same bytes as the Pexels photo: the stored asset is answered (200), as an upload of them would be.
    expect([200, 201]).toContain(res.statusCode);
    expect(seen.map((request) => new URL(request.url, origin).pathname)).toEqual([
      '/unsplash/photos/eOLpJytrbsQ',
      '/unsplash/photos/eOLpJytrbsQ/download',
      '/img/unsplash/photo-1416339306562-f3d12fefd36f',
    ]);
    expect(seen[1]!.headers.authorization).toBe('Client-ID unsplash-key');
    // The file host gets no key.
    expect(seen[2]!.headers.authorization).toBeUndefined();
    const file = await site.platform.app.inject({ method: 'GET', url: res.json().url });
    expect(file.rawPayload.equals(PHOTO)).toBe(true);
  });

  it('looks a Pixabay photo up by id; an unknown id is 404, a provider without a key 502', async () => {
    const res = await importPhoto({ provider: 'pixabay', id: '195893' });
    expect([200, 201]).toContain(res.statusCode);
    expect(Object.fromEntries(new URL(seen[0]!.url, origin).searchParams)).toEqual({
      key: 'pixabay-key',
      id: '195893',
    });
    expect(new URL(seen[1]!.url, origin).pathname).toBe('/img/pixabay/ed6a99fd0a76647_1280.jpg');

    const unknown = await importPhoto({ provider: 'pixabay', id: '1' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
    const pexelsUnknown = await importPhoto({ provider: 'pexels', id: '999' });
    expect(pexelsUnknown.statusCode).toBe(404);
    expect((await importPhoto({ provider: 'flickr', id: '1' })).statusCode).toBe(400);
  });

  it('answers 502 when the photo file fails, storing nothing', async () => {
    const before = (await site.request({ method: 'GET', url: '/api/media?countOnly=1' })).json().total;
    override = { path: '/img/pexels/photos/2014422/pexels-photo-2014422.jpeg', status: 503, body: 'busy' };
    const res = await importPhoto({ provider: 'pexels', id: '2014422', filename: 'again.jpg' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'stock_provider_unavailable',
      error: expect.stringContaining('503'),
    });
    expect((await site.request({ method: 'GET', url: '/api/media?countOnly=1' })).json().total).toBe(before);
  });
});

describe('stock import without the file host allowed', () => {
  it('refuses to fetch a photo file on a private address (guarded fetcher), storing nothing', async () => {
    const guarded = await createContentTestSite({
      slug: 'stock-guarded',
      env: { PEXELS_API_KEY: 'pexels-key', PEXELS_URL: `${origin}/pexels/v1` },
    });
    try {
      // The API's configured origin is trusted; the file's host (from the answer) is not.
      const search = await guarded.request({
        method: 'GET',
        url: '/api/media/stock?provider=pexels&q=nature',
      });
      expect(search.statusCode).toBe(200);
      const res = await guarded.request({
        method: 'POST',
        url: '/api/media/stock/import',
        payload: { provider: 'pexels', id: '2014422' },
      });
      expect(res.statusCode).toBe(502);
      expect(res.json().code).toBe('stock_provider_unavailable');
      expect(seen.some((request) => request.url.startsWith('/img/'))).toBe(false);
      expect((await guarded.request({ method: 'GET', url: '/api/media?countOnly=1' })).json().total).toBe(0);
      // Without a key the import names the variable to set.
      const unsplash = await guarded.request({
        method: 'POST',
        url: '/api/media/stock/import',
        payload: { provider: 'unsplash', id: 'eOLpJytrbsQ' },
      });
      expect(unsplash.statusCode).toBe(502);
      expect(unsplash.json().hint).toContain('UNSPLASH_ACCESS_KEY');
    } finally {
      await guarded.close();
    }
  });
});
