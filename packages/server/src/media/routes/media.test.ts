import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { MAX_MEDIA_BYTES } from '@trelliscms/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { internalNodeIdOf } from '../../shared/internal-ids';

let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
});
afterEach(async () => {
  await site.close();
});

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real PNG of `width` x `height` grey pixels; `seed` varies the content. */
function png(width: number, height: number, seed = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  const rows = Buffer.alloc((width + 1) * height, seed % 256);
  for (let row = 0; row < height; row += 1) rows[row * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

function multipart(
  parts: Array<{ field: string; filename?: string; type?: string; content: Buffer | string }>,
) {
  const boundary = `----trellis${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = part.filename
      ? `form-data; name="${part.field}"; filename="${part.filename}"`
      : `form-data; name="${part.field}"`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

function upload(
  content: Buffer | string,
  filename = 'photo.png',
  type = 'image/png',
  headers: Record<string, string> = {},
) {
  const body = multipart([{ field: 'file', filename, type, content }]);
  return site.request({
    method: 'POST',
    url: '/api/media/upload',
    payload: body.payload,
    headers: { ...body.headers, ...headers },
  });
}

const sha = (content: Buffer) => createHash('sha256').update(content).digest('hex');

describe('POST /api/media/upload', () => {
  it('stores an image under its sha256 with its dimensions, and de-duplicates the same content', async () => {
    const image = png(3, 2);
    const res = await upload(image, 'Holiday Photo.png');
    expect(res.statusCode, res.body).toBe(201);
    const asset = res.json();
    expect(asset).toMatchObject({
      ok: true,
      id: `asset:${sha(image).slice(0, 24)}`,
      url: `/media/assets/${sha(image)}.png`,
      sha256: sha(image),
      filename: 'Holiday Photo.png',
      mimetype: 'image/png',
      bytes: image.length,
      width: 3,
      height: 2,
      uploadedBy: expect.any(String),
    });
    expect(existsSync(join(site.platform.dataDir, 'media', 'assets', `${sha(image)}.png`))).toBe(true);
    const again = await upload(image, 'copy.png');
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(asset.id);
    expect((await site.request({ method: 'GET', url: '/api/media?countOnly=1' })).json()).toEqual({
      total: 1,
    });
  });

  it('types files by their bytes: a PDF is accepted, text declared as an image and SVG are refused (400)', async () => {
    const pdf = await upload(PDF, 'doc.pdf', 'application/pdf');
    expect(pdf.statusCode, pdf.body).toBe(201);
    expect(pdf.json()).toMatchObject({ mimetype: 'application/pdf', width: null, height: null });
    expect(pdf.json().url).toMatch(/\.pdf$/);
    for (const [content, name] of [
      ['not really a png', 'fake.png'],
      ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'x.svg'],
      ['', 'empty.png'],
    ] as const) {
      const res = await upload(content, name);
      expect(res.statusCode, name).toBe(400);
      expect(res.json().code).toBe('media_type_not_allowed');
    }
    expect((await site.request({ method: 'GET', url: '/api/media?countOnly=1' })).json()).toEqual({
      total: 1,
    });
  });

  it('answers 413 media_too_large over 25 MB and stores nothing', async () => {
    const big = Buffer.concat([png(1, 1), Buffer.alloc(MAX_MEDIA_BYTES)]);
    const res = await upload(big, 'big.png');
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('media_too_large');
    expect((await site.request({ method: 'GET', url: '/api/media?countOnly=1' })).json()).toEqual({
      total: 0,
    });
  });

  it('answers 400 without multipart or without the field `file`, and 403 for a viewer', async () => {
    const json = await site.request({ method: 'POST', url: '/api/media/upload', payload: { file: 'x' } });
    expect(json.statusCode).toBe(400);
    const other = multipart([{ field: 'image', filename: 'a.png', type: 'image/png', content: png(1, 1) }]);
    const noFile = await site.request({
      method: 'POST',
      url: '/api/media/upload',
      payload: other.payload,
      headers: other.headers,
    });
    expect(noFile.statusCode).toBe(400);
    const viewer = await site.platform.addUser({ name: 'v', siteId: site.siteId, role: 'viewer' });
    expect(
      (await upload(png(1, 1), 'a.png', 'image/png', { authorization: `Bearer ${viewer.key}` })).statusCode,
    ).toBe(403);
  });

  it('answers 400 malformed_multipart, never 500, for a garbled body (issue 16 item 6), and stores nothing', async () => {
    const whole = multipart([{ field: 'file', filename: 'a.png', type: 'image/png', content: png(4, 4) }]);
    const boundary = /boundary=(.+)$/.exec(whole.headers['content-type'])![1]!;
    const garbled: Array<[string, Buffer | string, string]> = [
      // Cut off inside the file part: no closing boundary.
      ['truncated', whole.payload.subarray(0, whole.payload.length - 40), whole.headers['content-type']],
      ['no boundary parameter', whole.payload, 'multipart/form-data'],
      ['another boundary', whole.payload, 'multipart/form-data; boundary=not-the-one'],
      ['not multipart at all', 'garbage, garbage', whole.headers['content-type']],
      ['headers cut short', `--${boundary}\r\nContent-Disposition: form-da`, whole.headers['content-type']],
      ['empty body', '', whole.headers['content-type']],
    ];
    for (const [what, payload, contentType] of garbled) {
      const res = await site.request({
        method: 'POST',
        url: '/api/media/upload',
        payload,
        headers: { 'content-type': contentType },
      });
      expect(res.statusCode, `${what}: ${res.body}`).toBe(400);
      expect(Object.keys(res.json()).sort(), what).toEqual(['code', 'error']);
      expect(['malformed_multipart', 'media_type_not_allowed'], what).toContain(res.json().code);
    }
    // The two the issue names are told apart from a missing file.
    for (const [payload, contentType] of [garbled[0]!, garbled[1]!].map(([, p, c]) => [p, c] as const)) {
      const res = await site.request({
        method: 'POST',
        url: '/api/media/upload',
        payload,
        headers: { 'content-type': contentType },
      });
      expect(res.json().code).toBe('malformed_multipart');
    }
    expect((await site.request({ method: 'GET', url: '/api/media?countOnly=1' })).json()).toEqual({
      total: 0,
    });
  });
});

describe('GET /api/media', () => {
  it('lists newest first, filters by file-name substring and counts', async () => {
    await upload(png(1, 1, 1), 'cat.png');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await upload(png(1, 1, 2), 'dog.png');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await upload(png(1, 1, 3), 'Catalogue.png');
    const all = (await site.request({ method: 'GET', url: '/api/media' })).json();
    expect(all.map((asset: { filename: string }) => asset.filename)).toEqual([
      'Catalogue.png',
      'dog.png',
      'cat.png',
    ]);
    const cats = (await site.request({ method: 'GET', url: '/api/media?q=cat' })).json();
    expect(cats.map((asset: { filename: string }) => asset.filename)).toEqual(['Catalogue.png', 'cat.png']);
    expect((await site.request({ method: 'GET', url: '/api/media?q=cat&countOnly=1' })).json()).toEqual({
      total: 2,
    });
    expect((await site.request({ method: 'GET', url: '/api/media?countOnly=maybe' })).statusCode).toBe(400);
  });
});

describe('DELETE /api/media/{id} and GET /media/assets/{sha}.{ext}', () => {
  it('serves the file publicly, then removes node and file (204), then 404', async () => {
    const image = png(4, 4);
    const asset = (await upload(image)).json();
    const file = await site.platform.app.inject({ method: 'GET', url: asset.url });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.rawPayload.equals(image)).toBe(true);

    const deleted = await site.request({ method: 'DELETE', url: `/api/media/${asset.id}` });
    expect(deleted.statusCode).toBe(204);
    expect((await site.platform.app.inject({ method: 'GET', url: asset.url })).statusCode).toBe(404);
    expect((await site.request({ method: 'DELETE', url: `/api/media/${asset.id}` })).statusCode).toBe(404);
    expect((await site.request({ method: 'GET', url: '/api/media?countOnly=1' })).json()).toEqual({
      total: 0,
    });
  });

  it('keeps the file while another site still holds the same content', async () => {
    const image = png(2, 2);
    const asset = (await upload(image)).json();
    const other = await site.platform.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { authorization: site.headers.authorization as string },
      payload: { name: 'Other', slug: 'other', starterKit: 'none' },
    });
    const body = multipart([{ field: 'file', filename: 'same.png', type: 'image/png', content: image }]);
    const second = await site.request({
      method: 'POST',
      url: '/api/media/upload',
      payload: body.payload,
      headers: { ...body.headers, 'x-site-id': other.json().id },
    });
    expect(second.statusCode, second.body).toBe(201);
    expect((await site.request({ method: 'DELETE', url: `/api/media/${asset.id}` })).statusCode).toBe(204);
    expect((await site.platform.app.inject({ method: 'GET', url: asset.url })).statusCode).toBe(200);
  });

  it('answers 404 for unknown files and refuses paths that leave the folder', async () => {
    const missing = `/media/assets/${'a'.repeat(64)}.png`;
    expect((await site.platform.app.inject({ method: 'GET', url: missing })).statusCode).toBe(404);
    for (const url of [
      '/media/assets/..%2F..%2Fconfig.json',
      '/media/assets/../../etc/passwd',
      `/media/assets/${'a'.repeat(64)}.png%2F..%2F..`,
      `/media/assets/${'A'.repeat(64)}.png`,
    ]) {
      const res = await site.platform.app.inject({ method: 'GET', url });
      expect([400, 404], url).toContain(res.statusCode);
    }
  });
});

describe('GET /api/media/stock', () => {
  it('answers 502 stock_provider_unavailable with a hint (no provider is configured)', async () => {
    const res = await site.request({ method: 'GET', url: '/api/media/stock?provider=pexels&q=forest' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'stock_provider_unavailable',
      hint: expect.stringContaining('PEXELS_API_KEY'),
    });
    expect(
      (await site.request({ method: 'GET', url: '/api/media/stock?provider=flickr&q=x' })).statusCode,
    ).toBe(400);
  });
});

describe('GET /api/media/stock with STOCK_PROVIDER_URL', () => {
  let server: Server;
  let seen: string[];
  let answer: { status: number; body: unknown };
  let configured: ContentTestSite;

  beforeEach(async () => {
    seen = [];
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    configured = await createContentTestSite({
      env: { STOCK_PROVIDER_URL: `http://127.0.0.1:${address.port}/search` },
      slug: 'stock',
    });
  });
  afterEach(async () => {
    await configured.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers the provider items, passing provider, q and orientation', async () => {
    const item = {
      id: 'p1',
      url: 'https://img/p1.jpg',
      thumb: 'https://img/p1-s.jpg',
      photographer: 'Ann',
      source: 'pexels',
      width: 800,
      height: 600,
    };
    answer = { status: 200, body: { items: [item] } };
    const res = await configured.request({
      method: 'GET',
      url: '/api/media/stock?provider=pexels&q=forest&orientation=landscape',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ items: [item] });
    expect(seen).toEqual(['/search?provider=pexels&q=forest&orientation=landscape']);
  });

  it('answers 502 with a hint when the provider fails or answers another shape', async () => {
    answer = { status: 500, body: { error: 'down' } };
    const failed = await configured.request({ method: 'GET', url: '/api/media/stock?provider=unsplash&q=x' });
    expect(failed.statusCode).toBe(502);
    expect(failed.json()).toMatchObject({ code: 'stock_provider_unavailable', hint: expect.any(String) });
    answer = { status: 200, body: { photos: [] } };
    const odd = await configured.request({ method: 'GET', url: '/api/media/stock?provider=unsplash&q=x' });
    expect(odd.statusCode).toBe(502);
  });
});

describe('DELETE /api/media/{id} with integrity', () => {
  const createArticleType = (required = false) =>
    site.createType({
      name: 'article',
      label: 'Article',
      nodeLabel: 'Article',
      keyField: 'title',
      fields: [
        { name: 'title', type: 'string', required: true },
        { name: 'photo', type: 'image', required },
        { name: 'thumb', type: 'image' },
      ],
    });
  const article = async (title: string, fields: Record<string, unknown>) => {
    const created = await site.request({
      method: 'POST',
      url: '/api/content/article',
      payload: { title, ...fields },
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().id as string;
  };
  const auditLength = async () => (await site.graph.auditRecords()).length;

  it('refuses an asset items show, naming them, and writes nothing; ?cascade=1 clears their fields and deletes it', async () => {
    await createArticleType();
    const asset = (await upload(png(5, 5, 1))).json();
    const other = (await upload(png(5, 5, 2))).json();
    const both = await article('Both', { photo: asset.id, thumb: asset.id });
    const one = await article('One', { photo: asset.id, thumb: other.id });
    await article('None', { thumb: other.id });
    const before = await auditLength();
    const refused = await site.request({ method: 'DELETE', url: `/api/media/${asset.id}` });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'in_use', holderCount: 2 });
    expect(refused.json().holders).toEqual([
      { kind: 'item', id: both, detail: 'shows it in `photo`, `thumb`', cascades: true },
      { kind: 'item', id: one, detail: 'shows it in `photo`', cascades: true },
    ]);
    expect(refused.json().hint).toContain('?cascade=1');
    expect(await auditLength()).toBe(before);
    expect((await site.platform.app.inject({ method: 'GET', url: asset.url })).statusCode).toBe(200);

    const cascaded = await site.request({ method: 'DELETE', url: `/api/media/${asset.id}?cascade=1` });
    expect(cascaded.statusCode).toBe(204);
    expect((await site.platform.app.inject({ method: 'GET', url: asset.url })).statusCode).toBe(404);
    const bothNow = (await site.request({ method: 'GET', url: `/api/content/article/${both}` })).json();
    expect(bothNow.fields).toEqual({ title: 'Both' });
    expect(bothNow.version).toBe(2);
    const oneNow = (await site.request({ method: 'GET', url: `/api/content/article/${one}` })).json();
    expect(oneNow.fields).toEqual({ title: 'One', thumb: other.id });
    const written = (await site.graph.auditRecords()).slice(before);
    expect(written.map((record) => `${record.action} ${record.target}`)).toEqual([
      `content.update ${both}`,
      `content.update ${one}`,
      `media.delete ${asset.id}`,
    ]);
    expect(written[0]?.data).toMatchObject({ cascadeOf: asset.id });
    expect(written[2]?.data).toMatchObject({ cascade: true, cleared: [both, one] });
  });

  it('refuses even with ?cascade=1 where a field is required or a live version shows it', async () => {
    await createArticleType(true);
    const asset = (await upload(png(6, 6, 3))).json();
    const other = (await upload(png(6, 6, 4))).json();
    const required = await article('Required', { photo: asset.id });
    const live = await article('Live', { photo: other.id, thumb: asset.id });
    const published = await site.request({
      method: 'POST',
      url: `/api/content/article/${live}/publish?env=prod`,
    });
    expect(published.statusCode, published.body).toBe(200);
    // The head no longer shows it; the version live in prod still does.
    const edited = await site.request({
      method: 'PATCH',
      url: `/api/content/article/${live}`,
      payload: { thumb: null },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const before = await auditLength();
    const refused = await site.request({ method: 'DELETE', url: `/api/media/${asset.id}?cascade=1` });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().holders).toEqual([
      { kind: 'item', id: required, detail: 'shows it in `photo` (required)', cascades: false },
      { kind: 'item', id: live, detail: 'its version 1, live in env:prod, shows it', cascades: false },
    ]);
    expect(await auditLength()).toBe(before);
    expect(
      (await site.request({ method: 'GET', url: `/api/content/article/${required}` })).json().fields.photo,
    ).toBe(asset.id);
  });

  it('keeps an item editable when an asset it shows is gone (deleted before deletes checked)', async () => {
    await createArticleType();
    const asset = (await upload(png(7, 7, 5))).json();
    const id = await article('Orphan', { photo: asset.id });
    // As an older server left it: the asset removed while an item still shows it.
    expect(await site.graph.deleteNode(internalNodeIdOf(asset.id))).toBe(true);
    const edited = await site.request({
      method: 'PATCH',
      url: `/api/content/article/${id}`,
      payload: { title: 'Orphan, edited' },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().fields).toEqual({ title: 'Orphan, edited', photo: asset.id });
    // What a write introduces must still exist.
    const introduced = await site.request({
      method: 'PATCH',
      url: `/api/content/article/${id}`,
      payload: { thumb: asset.id },
    });
    expect(introduced.statusCode).toBe(400);
    expect(introduced.json().error).toContain(`points at ${asset.id}, which does not exist`);
  });
});
