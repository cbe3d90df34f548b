import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { createFolderTarget, build as runBuilder } from '@trelliscms/builder';
import type { InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';

/**
 * Issue 18 "the preview can be clicked through" and issue 14 `publicUrlOverride`: the pages of
 * a starter-kit site link relative to themselves (so they work under /sites/<slug>/<env>/ and
 * at a domain's root), absolute URLs come from the environment's public URL, and `media_url`
 * renders the same in a server build as in `cms-build`.
 */

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real 2×2 PNG. */
function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 9, 9, 0, 9, 9]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('preview links, public URLs and media in server builds', () => {
  let platform: TestPlatform;
  let headers: Record<string, string>;
  const request = (options: InjectOptions & { method: InjectOptions['method'] }) =>
    platform.app.inject({
      ...options,
      headers: { ...headers, ...(options.headers as Record<string, string>) },
    });

  beforeEach(async () => {
    platform = await startTestPlatform({ env: { LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0' } });
    const owner = { authorization: `Bearer ${platform.ownerKey}` };
    const created = await platform.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: owner,
      payload: { name: 'Links', slug: 'links', starterKit: 'author', publicUrl: 'https://example.org/blog' },
    });
    expect(created.statusCode, created.body).toBe(201);
    headers = { ...owner, 'x-site-id': created.json().id };
  });
  afterEach(async () => {
    await platform.close();
  });

  it('links each page relative to itself, and renders media_url of an asset id as cms-build does, byte for byte', async () => {
    const boundary = '----trellis-test';
    const upload = await request({
      method: 'POST',
      url: '/api/media/upload',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cover.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        png(),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const asset = upload.json() as { id: string; url: string };
    const patched = await request({
      method: 'PATCH',
      url: '/api/content/post/post:hello-world',
      payload: { fields: { cover: asset.id } },
    });
    expect(patched.statusCode, patched.body).toBe(200);

    const built = await request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } });
    expect(built.json()).toMatchObject({ ok: true });
    const post = await platform.app.inject({ method: 'GET', url: '/sites/links/dev/blog/hello-world/' });
    expect(post.statusCode).toBe(200);
    // the asset's own URL, served by this server (not `asset:…`, not /media/media/…)
    expect(post.body).toContain(`<img src="${asset.url}" alt="">`);
    expect((await platform.app.inject({ method: 'GET', url: asset.url })).statusCode).toBe(200);
    // links relative to the page: they stay inside /sites/links/dev/ and work at example.org/blog/ too
    expect(post.body).toContain('<a href="../">Blog</a>');
    expect(post.body).toContain('<a class="brand" href="../../">');
    expect(post.body).toContain('href="../../tags/news/"');
    expect(post.body).toContain('<link rel="canonical" href="https://example.org/blog/blog/hello-world/">');
    expect(post.body).not.toMatch(/href="\/(?!\/)/);

    const snapshot = (await request({ method: 'GET', url: '/api/export' })).json();
    expect(snapshot.assets).toEqual([{ id: asset.id, url: asset.url }]);
    const out = await mkdtemp(join(tmpdir(), 'trellis-cms-build-'));
    try {
      const local = await runBuilder({
        source: snapshot,
        env: 'dev',
        mode: 'full',
        target: createFolderTarget({ dir: out }),
      });
      expect(local.ok).toBe(true);
      const files = (await readdir(out, { recursive: true })).filter(
        (file) => /\.(html|xml)$/.test(file) || file.startsWith('search/'),
      );
      expect(files).toEqual(
        expect.arrayContaining(['blog/hello-world/index.html', 'feed.xml', 'sitemap.xml']),
      );
      for (const file of files) {
        const served = await platform.app.inject({ method: 'GET', url: `/sites/links/dev/${file}` });
        expect(served.statusCode, file).toBe(200);
        expect(served.body, file).toBe(await readFile(join(out, file), 'utf8'));
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it("makes an environment's publicUrlOverride the base of its absolute URLs and its serve check", async () => {
    await platform.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(platform.app.server.address() as { port: number }).port}`;
    // The override names where the environment is served: here, this server's own live path.
    const override = `${origin}/sites/links/staging/`;
    const env = await request({
      method: 'PUT',
      url: '/api/releases/environments/env:staging',
      payload: {
        name: 'staging',
        order: 1,
        autoBuild: false,
        requiresApproval: false,
        publicUrlOverride: override,
      },
    });
    expect(env.statusCode, env.body).toBeLessThan(300);
    const built = await request({ method: 'POST', url: '/api/build?env=staging', payload: { mode: 'full' } });
    const result = built.json();
    expect(result.ok, built.body).toBe(true);
    // the serve check probed the override (the guarded fetcher refuses loopback unless allowed)
    expect(result.deploy.serveCheck.url).toBe(override);
    const sitemap = await platform.app.inject({ method: 'GET', url: '/sites/links/staging/sitemap.xml' });
    expect(sitemap.body).toContain(`<loc>${override}</loc>`);
    expect(sitemap.body).not.toContain('example.org');
    const home = await platform.app.inject({ method: 'GET', url: '/sites/links/staging/' });
    expect(home.body).toContain(`<link rel="canonical" href="${override}">`);
    // dev keeps the site's own public URL
    await request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } });
    const devSitemap = await platform.app.inject({ method: 'GET', url: '/sites/links/dev/sitemap.xml' });
    expect(devSitemap.body).toContain('<loc>https://example.org/blog/</loc>');
  });

  it('without a public URL, gives absolute URLs from the preview base and warns', async () => {
    await platform.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(platform.app.server.address() as { port: number }).port}`;
    const cleared = await request({
      method: 'PUT',
      url: '/api/sites/site:links',
      payload: { publicUrl: null },
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    const built = await request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } });
    expect(built.json()).toMatchObject({
      ok: true,
      warnings: [expect.objectContaining({ code: 'public_url_missing' })],
      deploy: { serveCheck: { ok: true } },
    });
    const sitemap = await platform.app.inject({ method: 'GET', url: '/sites/links/dev/sitemap.xml' });
    expect(sitemap.body).toContain(`<loc>${origin}/sites/links/dev/blog/hello-world/</loc>`);
    const status = await request({ method: 'GET', url: `/api/build/status/${built.json().buildId}` });
    expect(status.json().warnings).toEqual(built.json().warnings);
  });
});
