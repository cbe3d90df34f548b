import { createHash, randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import type { BuildManifest } from '@trelliscms/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Target } from './s3-target';
import type { DeployTarget } from './types';

// Runs against a real S3-compatible server when S3_TEST_ENDPOINT is set
// (`pnpm s3:start` prints it; .ci/run exports it): tools/s3-harness (Adobe S3Mock).
const endpoint = process.env.S3_TEST_ENDPOINT;

function manifestOf(buildId: string, createdAt: number, pages: Record<string, string>): BuildManifest {
  return {
    format: 'trellis-build-manifest',
    version: 1,
    buildId,
    env: 'dev',
    globalHash: 'g',
    graphHash: 'h',
    createdAt: new Date(createdAt).toISOString(),
    artifacts: Object.entries(pages).map(([file, body]) => ({
      key: `file:${file}`,
      file,
      hash: createHash('sha256').update(body).digest('hex'),
      bytes: body.length,
      deps: { items: {}, templates: {}, queries: {} },
    })),
  };
}

describe.skipIf(!endpoint)('s3 deploy target (S3_TEST_ENDPOINT)', () => {
  const bucket = `trellis-test-${randomBytes(4).toString('hex')}`;
  /** S3 commands sent, by name (counted by a middleware on the client). */
  const sent = new Map<string, number>();
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  client.middlewareStack.add(
    (next, context) => (args) => {
      const name = context.commandName ?? '?';
      sent.set(name, (sent.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  const count = (name: string) => sent.get(name) ?? 0;

  const keys = async (prefix: string) => {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) out.push(o.Key!);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  };
  const text = async (key: string) =>
    (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString();
  const live = async (target: DeployTarget, path: string) => {
    const file = await target.readLiveFile!(path);
    if (!file) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of file.body as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  };

  /** Commits a version with these pages; `carry` files come unchanged from the live version. */
  async function commit(
    target: DeployTarget,
    buildId: string,
    at: number,
    pages: Record<string, string>,
    { activate = true, carry = {} as Record<string, string> } = {},
  ) {
    const session = await target.open({ buildId, activate });
    for (const [file, body] of Object.entries(pages)) await session.writeFile(file, body);
    await session.carry(Object.keys(carry));
    return session.commit({
      manifest: manifestOf(buildId, at, { ...carry, ...pages }),
      removed: [],
      activate,
    });
  }

  beforeAll(async () => {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  });
  afterAll(async () => {
    const all = await keys('');
    for (let i = 0; i < all.length; i += 1000) {
      await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: all.slice(i, i + 1000).map((Key) => ({ Key })) },
        }),
      );
    }
    await client.send(new DeleteBucketCommand({ Bucket: bucket }));
    client.destroy();
  });

  it('writes each build under its own prefix and goes live by the pointer, written last', async () => {
    const target = createS3Target({ client, bucket, prefix: 'sites/g1/dev/' });
    expect(await target.liveManifest()).toBeNull();
    expect(await live(target, '')).toBeNull();

    const first = await commit(target, 'b1', 1000, {
      'index.html': '<p>one</p>',
      'blog/index.html': 'blog 1',
    });
    expect(first).toEqual({ bucket, keyPrefix: 'sites/g1/dev/versions/b1/' });
    expect(await keys('sites/g1/dev/')).toEqual([
      'sites/g1/dev/current.json',
      'sites/g1/dev/manifests/b1.json',
      'sites/g1/dev/versions/b1/blog/index.html',
      'sites/g1/dev/versions/b1/index.html',
    ]);
    expect(JSON.parse(await text('sites/g1/dev/current.json')).buildId).toBe('b1');
    expect(await live(target, '')).toBe('<p>one</p>');
    expect(await live(target, 'blog')).toBe('blog 1');
    expect(await live(target, 'blog/')).toBe('blog 1');
    expect(await live(target, 'nothing.html')).toBeNull();
    expect((await target.readLiveFile!('index.html'))?.contentType).toMatch(/^text\/html/);

    // Built ahead: kept, not live; another target instance (another server) sees the same.
    await commit(target, 'b2', 2000, { 'index.html': '<p>two</p>' }, { activate: false });
    const other = createS3Target({ client, bucket, prefix: 'sites/g1/dev/' });
    expect(await other.readLiveBuildId!()).toBe('b1');
    expect(await other.hasVersion!('b2')).toBe(true);
    expect(await other.hasVersion!('b9')).toBe(false);

    // Going live and rolling back are one pointer write each.
    const putsBefore = count('PutObjectCommand');
    expect(await other.activate!('b2')).toEqual({ buildId: 'b2', previousBuildId: 'b1' });
    expect(count('PutObjectCommand') - putsBefore).toBe(1);
    expect(await live(target, '')).toBe('<p>two</p>');
    expect(await target.rollback!('b1')).toEqual({ buildId: 'b1', previousBuildId: 'b2' });
    expect(count('PutObjectCommand') - putsBefore).toBe(2);
    expect(await live(other, '')).toBe('<p>one</p>');
    expect((await other.liveManifest())?.buildId).toBe('b1');
    await expect(target.rollback!('nope')).rejects.toMatchObject({ code: 'build_version_not_found' });
    // Versions are immutable.
    await expect(target.open({ buildId: 'b1' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('copies unchanged files of an incremental build server-side instead of uploading them', async () => {
    const target = createS3Target({ client, bucket, prefix: 'sites/g2/prod/' });
    const pages: Record<string, string> = {};
    for (let n = 0; n < 20; n++) pages[`p/${n}/index.html`] = `page ${n}`;
    await commit(target, 'c1', 1000, pages);

    const puts = count('PutObjectCommand');
    const copies = count('CopyObjectCommand');
    // One page changed and written; 19 carried; and one written with the bytes it had.
    const carry = { ...pages };
    delete carry['p/0/index.html'];
    delete carry['p/1/index.html'];
    await commit(
      target,
      'c2',
      2000,
      { 'p/0/index.html': 'page 0 changed', 'p/1/index.html': 'page 1' },
      { carry },
    );
    // The uploads: the changed page, the manifest and the pointer; everything else was copied.
    expect(count('PutObjectCommand') - puts).toBe(3);
    expect(count('CopyObjectCommand') - copies).toBe(19);
    expect(await keys('sites/g2/prod/versions/c2/')).toHaveLength(20);
    expect(await live(target, 'p/0/')).toBe('page 0 changed');
    expect(await live(target, 'p/1/')).toBe('page 1');
    expect(await live(target, 'p/19/')).toBe('page 19');
    // The old version is untouched.
    expect(await text('sites/g2/prod/versions/c1/p/0/index.html')).toBe('page 0');
  });

  it('prunes old versions with their manifests, never the live one nor a protected one', async () => {
    const target = createS3Target({ client, bucket, prefix: 'sites/g3/dev/' });
    for (let n = 1; n <= 6; n++) await commit(target, `b${n}`, n * 1000, { 'index.html': `<p>b${n}</p>` });
    await target.activate!('b2');
    await commit(target, 'b7', 7000, { 'index.html': '<p>b7</p>' }, { activate: false });

    const result = await target.prune!({ keep: 2, protect: new Set(['b4']) });

    expect(result.removed).toEqual(['b1', 'b3', 'b5']);
    expect(result.kept).toBe(4);
    const left = await keys('sites/g3/dev/');
    expect(left.filter((k) => k.includes('/versions/'))).toEqual(
      ['b2', 'b4', 'b6', 'b7'].map((b) => `sites/g3/dev/versions/${b}/index.html`),
    );
    expect(left.filter((k) => k.includes('/manifests/'))).toEqual(
      ['b2', 'b4', 'b6', 'b7'].map((b) => `sites/g3/dev/manifests/${b}.json`),
    );
    expect(await live(target, '')).toBe('<p>b2</p>');
    await expect(target.activate!('b1')).rejects.toMatchObject({ code: 'build_version_not_found' });
  });

  it('flat layout: the live files are mirrored under the flat prefix before the pointer moves', async () => {
    const target = createS3Target({
      client,
      bucket,
      prefix: 'sites/g5/prod/',
      flatPrefix: 'domains/example.com/',
    });
    const first = await commit(target, 'f1', 1000, { 'index.html': 'home 1', 'old.html': 'old' });
    expect(first).toEqual({ bucket, keyPrefix: 'domains/example.com/' });
    await commit(target, 'f2', 2000, { 'index.html': 'home 2', 'new.html': 'new' });

    expect(await keys('domains/example.com/')).toEqual([
      'domains/example.com/index.html',
      'domains/example.com/new.html',
    ]);
    expect(await text('domains/example.com/index.html')).toBe('home 2');
    expect(JSON.parse(await text('sites/g5/prod/current.json')).buildId).toBe('f2');
    expect(await live(target, '')).toBe('home 2');

    // Any target instance (another server, one not told the flat prefix) mirrors the version where it was built for.
    await createS3Target({ client, bucket, prefix: 'sites/g5/prod/' }).rollback!('f1');
    expect(await keys('domains/example.com/')).toEqual([
      'domains/example.com/index.html',
      'domains/example.com/old.html',
    ]);
    expect(await text('domains/example.com/index.html')).toBe('home 1');
    // Prune never touches the flat copy (nor the live version it mirrors).
    await target.prune!({ keep: 0 });
    expect(await text('domains/example.com/old.html')).toBe('old');
    expect(() => createS3Target({ client, bucket, prefix: 'a/', flatPrefix: 'a/b/' })).toThrow(/contain/);
  });

  it('aborting a session deletes what it wrote and leaves the live version', async () => {
    const target = createS3Target({ client, bucket, prefix: 'sites/g4/dev/' });
    await commit(target, 'a1', 1000, { 'index.html': 'a1' });
    const session = await target.open({ buildId: 'a2' });
    await session.writeFile('index.html', 'a2');
    await session.writeFile('x/index.html', 'x');
    await session.abort();
    expect(await keys('sites/g4/dev/versions/a2/')).toEqual([]);
    expect(await live(target, '')).toBe('a1');
  });
});
