import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedBlog } from '../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { createS3TestBucket, type S3TestBucket, s3TestEndpoint } from '../../test/helpers/s3-test-bucket';
import { loadConfig } from '../config';
import { createEmbeddedEngine } from '../engines/embedded';
import { buildApp } from '../http/app';

describe('CMS_STORAGE configuration', () => {
  it('refuses s3 without a bucket, and one of the two static credentials alone', () => {
    expect(() => loadConfig({ CMS_STORAGE: 's3' })).toThrow(/S3_BUCKET is required when CMS_STORAGE=s3/);
    expect(() => loadConfig({ CMS_STORAGE: 's3', S3_BUCKET: 'b-1', S3_ACCESS_KEY_ID: 'k' })).toThrow(
      /S3_SECRET_ACCESS_KEY is required with the other one/,
    );
    expect(() => loadConfig({ CMS_STORAGE: 's3', S3_BUCKET: 'Not_A_Bucket' })).toThrow(/S3_BUCKET must be/);
    expect(loadConfig({ CMS_STORAGE: 's3', S3_BUCKET: 'media-1', S3_KEY_PREFIX: 'trellis' })).toMatchObject({
      S3_KEY_PREFIX: 'trellis/',
      S3_REGION: 'us-east-1',
    });
    expect(loadConfig({}).CMS_STORAGE).toBe('local');
  });
});

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real PNG of `size` x `size` pixels; `seed` varies the content. */
function png(size: number, seed: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 0, 0, 0, 0], 8);
  const rows = Buffer.alloc((size + 1) * size, seed % 256);
  for (let row = 0; row < size; row += 1) rows[row * (size + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function upload(site: ContentTestSite, content: Buffer) {
  const boundary = '----trellis-s3-test';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return site.request({
    method: 'POST',
    url: '/api/media/upload',
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
}

describe.skipIf(!s3TestEndpoint)('CMS_STORAGE=s3 (S3_TEST_ENDPOINT)', () => {
  let bucket: S3TestBucket;
  const sites: ContentTestSite[] = [];
  beforeAll(async () => {
    bucket = await createS3TestBucket();
  });
  afterEach(async () => {
    await Promise.all(sites.splice(0).map((site) => site.close()));
  });
  afterAll(async () => {
    await bucket?.remove();
  });
  const open = async (env: Record<string, string>, slug = 'blog') => {
    const site = await createContentTestSite({ env, slug });
    sites.push(site);
    return site;
  };

  it('refuses to start when the bucket does not exist, saying so', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trellis-s3-missing-'));
    try {
      const config = loadConfig({
        ...bucket.env,
        S3_BUCKET: `${bucket.name}-missing`,
        CMS_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        CMS_SCHEDULER: '0',
      });
      await expect(buildApp({ config, engine: createEmbeddedEngine({ dataDir }) })).rejects.toThrow(
        `the S3 bucket "${bucket.name}-missing" does not exist at ${s3TestEndpoint} (CMS_STORAGE=s3): create it first`,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('stores media in the bucket and serves the same bytes and headers as the local store', async () => {
    const image = png(8, 7);
    const local = await open({});
    const s3 = await open(bucket.env);
    const fromLocal = (await upload(local, image)).json();
    const stored = await upload(s3, image);
    expect(stored.statusCode, stored.body).toBe(201);
    const fromS3 = stored.json();
    expect(fromS3.url).toBe(fromLocal.url);
    const name = fromS3.url.slice('/media/assets/'.length);
    // In the bucket, not on the server's disk.
    expect(await bucket.keys('cms/media/')).toEqual([`cms/media/assets/${name}`]);
    expect((await bucket.bytes(`cms/media/assets/${name}`)).equals(image)).toBe(true);
    expect(existsSync(join(s3.platform.dataDir, 'media', 'assets', name))).toBe(false);

    const a = await local.platform.app.inject({ method: 'GET', url: fromLocal.url });
    const b = await s3.platform.app.inject({ method: 'GET', url: fromS3.url });
    expect(b.statusCode).toBe(200);
    expect(b.rawPayload.equals(image)).toBe(true);
    expect(b.rawPayload.equals(a.rawPayload)).toBe(true);
    for (const header of [
      'content-type',
      'content-length',
      'cache-control',
      'x-content-type-options',
      'etag',
    ]) {
      expect([header, b.headers[header]]).toEqual([header, a.headers[header]]);
    }
    expect(b.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(b.headers.etag).toBe(`"${name.split('.')[0]}"`);
    for (const store of [local, s3]) {
      const again = await store.platform.app.inject({
        method: 'GET',
        url: fromS3.url,
        headers: { 'if-none-match': b.headers.etag as string },
      });
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
    }
    expect(
      (await s3.platform.app.inject({ method: 'GET', url: `/media/assets/${'0'.repeat(64)}.png` }))
        .statusCode,
    ).toBe(404);

    // Delete: the object goes too.
    expect((await s3.request({ method: 'DELETE', url: `/api/media/${fromS3.id}` })).statusCode).toBe(204);
    expect(await bucket.keys('cms/media/')).toEqual([]);
    expect((await s3.platform.app.inject({ method: 'GET', url: fromS3.url })).statusCode).toBe(404);
  });

  it('deploys builds to the bucket and serves /sites/<slug>/<env>/ through the pointer; rollback switches it', async () => {
    const site = await open(bucket.env, 'blog');
    await seedBlog(site);
    const first = await site.request({
      method: 'POST',
      url: '/api/build?env=dev',
      payload: { mode: 'full' },
    });
    expect(first.statusCode, first.body).toBe(200);
    const one = first.json();
    const graphName = (await site.request({ method: 'GET', url: `/api/sites/${site.siteId}` })).json()
      .graphName;
    const envPrefix = `cms/sites/${graphName}/dev/`;
    expect(one.deploy).toMatchObject({
      ok: true,
      bucket: bucket.name,
      keyPrefix: `${envPrefix}versions/${one.buildId}/`,
    });
    const keys = await bucket.keys(envPrefix);
    expect(keys).toContain(`${envPrefix}current.json`);
    expect(keys).toContain(`${envPrefix}versions/${one.buildId}/posts/hello-world/index.html`);
    // Nothing on the server's disk.
    expect(existsSync(join(site.platform.dataDir, 'sites', graphName))).toBe(false);

    const hello = await site.platform.app.inject({
      method: 'GET',
      url: '/sites/blog/dev/posts/hello-world/',
    });
    expect(hello.statusCode).toBe(200);
    expect(hello.headers['content-type']).toMatch(/^text\/html/);
    expect(hello.body).toContain('<h1>Hello world</h1>');
    for (const url of ['/sites/blog/dev/', '/sites/blog/dev']) {
      const home = await site.platform.app.inject({ method: 'GET', url });
      expect(home.statusCode).toBe(200);
      expect(home.body).toContain('<a href="/posts/hello-world/">Hello world</a>');
    }
    expect(
      (await site.platform.app.inject({ method: 'GET', url: '/sites/blog/dev/posts/nope/' })).statusCode,
    ).toBe(404);
    expect(
      (await site.platform.app.inject({ method: 'GET', url: '/sites/blog/dev/../../../etc/passwd' }))
        .statusCode,
    ).toBe(404);

    // A change and an incremental build: unchanged pages are copied in the bucket.
    const edit = await site.request({
      method: 'PATCH',
      url: '/api/content/post/post:hello-world',
      payload: { title: 'Hello again' },
    });
    expect(edit.statusCode, edit.body).toBeLessThan(300);
    const second = await site.request({
      method: 'POST',
      url: '/api/build?env=dev',
      payload: { mode: 'incremental' },
    });
    expect(second.statusCode, second.body).toBe(200);
    const two = second.json();
    expect(
      (await site.platform.app.inject({ method: 'GET', url: '/sites/blog/dev/posts/hello-world/' })).body,
    ).toContain('<h1>Hello again</h1>');
    expect(await bucket.keys(`${envPrefix}versions/${two.buildId}/`)).toEqual(
      (await bucket.keys(`${envPrefix}versions/${one.buildId}/`)).map((key) =>
        key.replace(one.buildId, two.buildId),
      ),
    );

    // Rollback: one pointer write, and the old page is served again.
    const rolled = await site.request({ method: 'POST', url: `/api/build/rollback/${one.buildId}` });
    expect(rolled.statusCode, rolled.body).toBe(200);
    expect(JSON.parse((await bucket.bytes(`${envPrefix}current.json`)).toString()).buildId).toBe(one.buildId);
    expect(
      (await site.platform.app.inject({ method: 'GET', url: '/sites/blog/dev/posts/hello-world/' })).body,
    ).toContain('<h1>Hello world</h1>');

    // Another server switching the pointer (here: written straight into the bucket) is what this
    // one serves on the next request: nothing about the live version is kept in the process.
    await bucket.client.send(
      new PutObjectCommand({
        Bucket: bucket.name,
        Key: `${envPrefix}current.json`,
        Body: JSON.stringify({
          buildId: two.buildId,
          previousBuildId: one.buildId,
          switchedAt: new Date().toISOString(),
        }),
      }),
    );
    expect(
      (await site.platform.app.inject({ method: 'GET', url: '/sites/blog/dev/posts/hello-world/' })).body,
    ).toContain('<h1>Hello again</h1>');

    // Prune deletes the old prefix, never the live one (the pointer's).
    const pruned = await site.request({
      method: 'POST',
      url: '/api/build/prune',
      payload: { env: 'dev', keep: 1 },
    });
    expect(pruned.statusCode, pruned.body).toBe(200);
    expect(pruned.json()).toEqual({ envId: 'env:dev', removed: [one.buildId], kept: 1 });
    expect(await bucket.keys(`${envPrefix}versions/${one.buildId}/`)).toEqual([]);
    expect(await bucket.keys(`${envPrefix}manifests/`)).toEqual([
      `${envPrefix}manifests/${two.buildId}.json`,
    ]);
    expect(
      (await site.platform.app.inject({ method: 'GET', url: '/sites/blog/dev/posts/hello-world/' })).body,
    ).toContain('<h1>Hello again</h1>');
  });

  it('mirrors an environment with a custom domain to its flat prefix, and serves previews from the bucket', async () => {
    const site = await open(bucket.env, 'docs');
    await seedBlog(site);
    const env = await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:staging',
      payload: {
        name: 'staging',
        order: 1,
        autoBuild: false,
        requiresApproval: false,
        publicUrlOverride: 'https://Docs.Example.com/guide/',
      },
    });
    expect(env.statusCode, env.body).toBeLessThan(300);
    const built = await site.request({
      method: 'POST',
      url: '/api/build?env=staging',
      payload: { mode: 'full' },
    });
    expect(built.statusCode, built.body).toBe(200);
    const result = built.json();
    expect(result.deploy).toMatchObject({
      bucket: bucket.name,
      keyPrefix: 'cms/domains/docs.example.com/guide/',
    });
    const flat = await bucket.keys('cms/domains/docs.example.com/guide/');
    expect(flat).toContain('cms/domains/docs.example.com/guide/index.html');
    // The flat copy holds exactly the live version's files, byte for byte.
    const graphName = (await site.request({ method: 'GET', url: `/api/sites/${site.siteId}` })).json()
      .graphName;
    const version = `cms/sites/${graphName}/staging/versions/${result.buildId}/`;
    const versionKeys = await bucket.keys(version);
    expect(flat.map((key) => key.slice('cms/domains/docs.example.com/guide/'.length))).toEqual(
      versionKeys.map((key) => key.slice(version.length)),
    );
    expect(
      (await bucket.bytes(flat[0]!)).equals(await bucket.bytes(`${version}${flat[0]!.split('/guide/')[1]}`)),
    ).toBe(true);
    const home = await site.platform.app.inject({ method: 'GET', url: '/sites/docs/staging/' });
    expect(home.statusCode).toBe(200);
    expect(home.body).toBe((await bucket.bytes('cms/domains/docs.example.com/guide/index.html')).toString());

    // A preview (asOf) is written to the bucket and served from it.
    const preview = await site.request({
      method: 'POST',
      url: '/api/build',
      payload: { env: 'dev', asOf: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(preview.statusCode, preview.body).toBe(200);
    const { previewUrl, buildId } = preview.json();
    expect(previewUrl).toBe(`/previews/docs/${buildId}/`);
    expect(await bucket.keys(`cms/previews/${graphName}/${buildId}/current.json`)).toHaveLength(1);
    const page = await site.platform.app.inject({ method: 'GET', url: `${previewUrl}posts/hello-world/` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Hello world</h1>');
    expect(
      (await site.platform.app.inject({ method: 'GET', url: '/previews/docs/b-unknown/' })).statusCode,
    ).toBe(404);
  });
});
