import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { BuildManifest } from '@trelliscms/core';
import { TrellisError } from '@trelliscms/core/build';
import type {
  ActivateResult,
  DeployedVersion,
  DeployTarget,
  PruneParams,
  PruneResult,
  StoredFile,
  WriteSession,
} from './types';

const safeId = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

// The AWS SDK is loaded on first use: importing it costs about a second and 60 MB, which a
// builder that never deploys to S3 should not pay.
let sdkModule: Promise<typeof import('@aws-sdk/client-s3')> | null = null;
const sdk = () => {
  sdkModule ??= import('@aws-sdk/client-s3');
  return sdkModule;
};
/** Files larger than this go up as a multipart upload (@aws-sdk/lib-storage). */
const MULTIPART_BYTES = 8 * 1024 * 1024;
/** Requests in flight at once while copying, uploading or deleting many objects. */
const CONCURRENCY = 16;

/** Options of {@link createS3Target}. */
export interface S3TargetOptions {
  /** an S3 client (`forcePathStyle: true` for most local S3-compatible servers) */
  client: S3Client;
  bucket: string;
  /** the key prefix of this site environment, e.g. `trellis/sites/<graph>/<env>/` ('' = bucket root) */
  prefix: string;
  /**
   * The flat layout (a site with a custom domain): while a version built by this target is
   * live, its files are also kept, as they are, under this key prefix (e.g.
   * `domains/www.example.com/`), which a CDN or a static website host serves directly. The
   * flat copy is brought up to date by server-side copies and deletes before the pointer moves;
   * each version records its flat prefix, so making it live again later (rollback, a version
   * built ahead) mirrors it to the same place, whatever target instance does it. Versions,
   * manifests and the pointer stay under `prefix`.
   */
  flatPrefix?: string | null;
}

/** What the pointer object holds. */
interface Pointer {
  buildId: string;
  previousBuildId: string | null;
  switchedAt: string;
}

/**
 * The S3 deploy target (any S3-compatible store). Each build is written under its own immutable
 * key prefix `<base>versions/<buildId>/`, its manifest to `<base>manifests/<buildId>.json`, and
 * the version goes live when the one pointer object `<base>current.json` is overwritten, last
 * (S3 is strongly read-after-write consistent: a reader that sees the new pointer sees every
 * file of the version). Rolling back and activating a version built ahead are one pointer
 * write. Unchanged files of an incremental build are copied server-side (CopyObject) from the
 * live version, never uploaded again; so is a written file whose bytes equal the live one's.
 * With the flat layout (`flatPrefix`) the live files are also mirrored to `<flatPrefix><file>`
 * (server-side copies of changed files, deletes of removed ones) before the pointer moves.
 */
export function createS3Target(options: S3TargetOptions): DeployTarget {
  const { client, bucket } = options;
  if (!client || typeof bucket !== 'string' || bucket.trim() === '') {
    throw TrellisError.of('invalid_deploy_options', {
      target: 's3',
      detail: '`client` and a non-empty `bucket` are required',
    });
  }
  const prefix = options.prefix ?? '';
  const flatPrefix = options.flatPrefix ?? null;
  for (const [name, value] of [
    ['prefix', prefix],
    ['flatPrefix', flatPrefix ?? ''],
  ] as const) {
    if (value !== '' && !value.endsWith('/')) {
      throw TrellisError.of('invalid_deploy_options', {
        target: 's3',
        detail: `\`${name}\` must be empty or end with "/" (got "${value}")`,
      });
    }
  }
  if (flatPrefix !== null && (flatPrefix.startsWith(prefix) || prefix.startsWith(flatPrefix))) {
    throw TrellisError.of('invalid_deploy_options', {
      target: 's3',
      detail: `\`flatPrefix\` ("${flatPrefix}") and \`prefix\` ("${prefix}") must not contain each other`,
    });
  }
  const base = prefix;
  const versionPrefix = (buildId: string) => `${base}versions/${buildId}/`;
  const manifestKey = (buildId: string) => `${base}manifests/${buildId}.json`;
  const pointerKey = `${base}current.json`;

  let cachedManifest: BuildManifest | null = null;
  let lastPointer: string | null = null;

  const readPointer = async (): Promise<Pointer | null> => {
    const text = await getText(client, bucket, pointerKey);
    if (text === null) {
      lastPointer = null;
      return null;
    }
    try {
      const pointer = JSON.parse(text) as Pointer;
      lastPointer = typeof pointer.buildId === 'string' ? pointer.buildId : null;
      return lastPointer ? pointer : null;
    } catch {
      return null;
    }
  };

  const readManifest = async (buildId: string): Promise<BuildManifest | null> => {
    if (cachedManifest?.buildId === buildId) return cachedManifest;
    const text = await getText(client, bucket, manifestKey(buildId));
    if (text === null) return null;
    try {
      const manifest = JSON.parse(text) as BuildManifest;
      cachedManifest = manifest;
      return manifest;
    } catch {
      return null;
    }
  };

  const hasVersion = async (buildId: string): Promise<boolean> => (await versionHead(buildId)) !== null;

  /** The flat prefix a committed version is mirrored to when live ('' none), or null when it does not exist. */
  const versionHead = async (buildId: string): Promise<string | null> => {
    if (!safeId.test(buildId)) return null;
    try {
      const head = await client.send(
        new (await sdk()).HeadObjectCommand({ Bucket: bucket, Key: manifestKey(buildId) }),
      );
      return head.Metadata?.['flat-prefix'] ?? '';
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };

  /** Makes `root` hold exactly the files of `buildId` (server-side copies and deletes). */
  const mirror = async (buildId: string, root: string) => {
    const from = versionPrefix(buildId);
    const wanted = new Map<string, string>();
    for (const object of await listAll(client, bucket, from))
      wanted.set(object.key.slice(from.length), object.etag);
    const present = new Map<string, string>();
    for (const object of await listAll(client, bucket, root))
      present.set(object.key.slice(root.length), object.etag);
    const copies = [...wanted].filter(([file, etag]) => present.get(file) !== etag).map(([file]) => file);
    await inBatches(copies, (file) => copy(client, bucket, `${from}${file}`, `${root}${file}`));
    await deleteKeys(
      client,
      bucket,
      [...present.keys()].filter((file) => !wanted.has(file)).map((file) => `${root}${file}`),
    );
  };

  const activate = async (buildId: string): Promise<ActivateResult> => {
    const flatTo = await versionHead(buildId);
    if (flatTo === null) throw TrellisError.of('build_version_not_found', { buildId });
    const previous = (await readPointer())?.buildId ?? null;
    if (flatTo) await mirror(buildId, flatTo);
    await writePointer(buildId, previous);
    return { buildId, previousBuildId: previous };
  };

  const writePointer = async (buildId: string, previous: string | null) => {
    const pointer: Pointer = { buildId, previousBuildId: previous, switchedAt: new Date().toISOString() };
    await client.send(
      new (await sdk()).PutObjectCommand({
        Bucket: bucket,
        Key: pointerKey,
        Body: JSON.stringify(pointer),
        ContentType: 'application/json',
        CacheControl: 'no-cache',
      }),
    );
    lastPointer = buildId;
  };

  const target: DeployTarget = {
    name: 's3',
    capabilities: { atomic: true, rollback: true },
    location: { bucket, keyPrefix: flatPrefix ?? prefix, layout: flatPrefix ? 'flat' : 'versioned' },
    liveDir: () => null,
    liveBuildId: () => lastPointer,
    readLiveBuildId: async () => (await readPointer())?.buildId ?? null,
    hasVersion,
    async liveManifest() {
      const live = (await readPointer())?.buildId;
      return live ? readManifest(live) : null;
    },
    async liveManifestHead() {
      const live = (await readPointer())?.buildId;
      if (!live) return null;
      const manifest = await readManifest(live);
      if (!manifest) return null;
      const { artifacts: _artifacts, ...head } = manifest;
      return head;
    },
    async readLiveFile(path: string): Promise<StoredFile | null> {
      const live = (await readPointer())?.buildId;
      if (!live) return null;
      const clean = path.replace(/^\/+/, '');
      const root = versionPrefix(live);
      const candidates =
        clean === '' || clean.endsWith('/') ? [`${clean}index.html`] : [clean, `${clean}/index.html`];
      for (const candidate of candidates) {
        const found = await getObject(client, bucket, `${root}${candidate}`);
        if (found) return { ...found, path: candidate };
      }
      return null;
    },
    async open({ buildId }): Promise<WriteSession> {
      if (!safeId.test(buildId)) {
        throw TrellisError.of('invalid_deploy_options', {
          target: 's3',
          detail: `bad build id "${buildId}"`,
        });
      }
      if (await exists(client, bucket, manifestKey(buildId))) {
        throw TrellisError.of('conflict', {
          detail: `version ${buildId} already exists; versions are immutable`,
        });
      }
      const live = (await readPointer())?.buildId ?? null;
      const liveManifest = live ? await readManifest(live) : null;
      const liveHash = new Map((liveManifest?.artifacts ?? []).map((a) => [a.file, a.hash]));
      const to = versionPrefix(buildId);
      const pending = new Set<Promise<void>>();
      let failure: unknown = null;
      /** Runs `task` with at most CONCURRENCY in flight; the first failure is thrown at commit. */
      const queue = async (task: () => Promise<void>) => {
        while (pending.size >= CONCURRENCY) await Promise.race(pending);
        const promise = task()
          .catch((error: unknown) => {
            failure ??= error;
          })
          .finally(() => pending.delete(promise));
        pending.add(promise);
      };
      const settle = async () => {
        await Promise.all(pending);
        if (failure) throw failure;
      };
      return {
        async writeFile(path, data) {
          const bytes = typeof data === 'string' ? Buffer.from(data) : data;
          const known = liveHash.get(path);
          if (live && known && sameHash(known, bytes)) {
            await queue(() => copy(client, bucket, `${versionPrefix(live)}${path}`, `${to}${path}`));
            return;
          }
          await queue(() => put(client, bucket, `${to}${path}`, bytes, contentTypeOf(path)));
        },
        async carry(files) {
          if (!live) return;
          for (const file of files)
            await queue(() => copy(client, bucket, `${versionPrefix(live)}${file}`, `${to}${file}`));
        },
        async commit({ manifest, activate: goLive = true }) {
          await settle();
          // The manifest makes the version exist (hasVersion, versions); the pointer, last, makes it live.
          await client.send(
            new (await sdk()).PutObjectCommand({
              Bucket: bucket,
              Key: manifestKey(buildId),
              Body: JSON.stringify(manifest),
              ContentType: 'application/json',
              Metadata: {
                'created-at': manifest.createdAt ?? new Date().toISOString(),
                ...(flatPrefix ? { 'flat-prefix': flatPrefix } : {}),
              },
            }),
          );
          cachedManifest = manifest;
          if (goLive) {
            const previous = (await readPointer())?.buildId ?? null;
            if (flatPrefix) await mirror(buildId, flatPrefix);
            await writePointer(buildId, previous);
          }
          return { bucket, keyPrefix: flatPrefix ?? to };
        },
        async abort() {
          await Promise.allSettled(pending);
          await deleteKeys(
            client,
            bucket,
            (await listAll(client, bucket, to)).map((o) => o.key),
          );
        },
      };
    },
    activate,
    rollback: activate,
    async versions(): Promise<DeployedVersion[]> {
      const live = (await readPointer())?.buildId ?? null;
      const dir = `${base}manifests/`;
      const listed = (await listAll(client, bucket, dir)).filter(
        (o) => o.key.endsWith('.json') && !o.key.slice(dir.length).includes('/'),
      );
      const out: DeployedVersion[] = [];
      await inBatches(listed, async (object) => {
        const buildId = object.key.slice(dir.length, -'.json'.length);
        let created = object.lastModified;
        try {
          const head = await client.send(
            new (await sdk()).HeadObjectCommand({ Bucket: bucket, Key: object.key }),
          );
          created = head.Metadata?.['created-at'] ?? created;
        } catch {
          // Listed but gone (pruned meanwhile): its listing date will do.
        }
        out.push({ buildId, isLive: buildId === live, createdAt: created });
      });
      return out.sort((a, b) =>
        (a.createdAt ?? '') < (b.createdAt ?? '')
          ? 1
          : (a.createdAt ?? '') > (b.createdAt ?? '')
            ? -1
            : a.buildId < b.buildId
              ? 1
              : -1,
      );
    },
    async prune({ keep, protect }: PruneParams): Promise<PruneResult> {
      const all = await target.versions!();
      const removed: string[] = [];
      all.forEach((version, index) => {
        if (version.isLive || index < keep || protect?.has(version.buildId)) return;
        removed.push(version.buildId);
      });
      removed.reverse();
      for (const buildId of removed) {
        // The manifest first: without it the version no longer exists; its files follow.
        await deleteKeys(client, bucket, [manifestKey(buildId)]);
        await deleteKeys(
          client,
          bucket,
          (await listAll(client, bucket, versionPrefix(buildId))).map((o) => o.key),
        );
        if (cachedManifest?.buildId === buildId) cachedManifest = null;
      }
      return { removed, kept: all.length - removed.length };
    },
  };
  return target;
}

/** Whether `hash` (hex sha256, optionally `sha256:`-prefixed) is the sha256 of `bytes`. */
function sameHash(hash: string, bytes: Uint8Array): boolean {
  const hex = createHash('sha256').update(bytes).digest('hex');
  return hash === hex || hash === `sha256:${hex}`;
}

function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

async function exists(client: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    await client.send(new (await sdk()).HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

async function getText(client: S3Client, bucket: string, key: string): Promise<string | null> {
  try {
    const out = await client.send(new (await sdk()).GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await out.Body?.transformToString('utf8')) ?? null;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

async function getObject(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<Omit<StoredFile, 'path'> | null> {
  try {
    const out = await client.send(new (await sdk()).GetObjectCommand({ Bucket: bucket, Key: key }));
    return {
      body: out.Body as Readable,
      bytes: out.ContentLength ?? null,
      contentType: out.ContentType ?? null,
      etag: out.ETag ?? null,
    };
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

async function put(client: S3Client, bucket: string, key: string, body: Uint8Array, type: string) {
  if (body.byteLength > MULTIPART_BYTES) {
    const { Upload } = await import('@aws-sdk/lib-storage');
    await new Upload({
      client,
      params: { Bucket: bucket, Key: key, Body: body, ContentType: type },
      queueSize: 4,
      partSize: MULTIPART_BYTES,
    }).done();
    return;
  }
  await client.send(
    new (await sdk()).PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: type }),
  );
}

async function copy(client: S3Client, bucket: string, from: string, to: string) {
  await client.send(
    new (await sdk()).CopyObjectCommand({
      Bucket: bucket,
      Key: to,
      CopySource: `${bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
    }),
  );
}

/** Every object under `prefix` (all pages of ListObjectsV2). */
async function listAll(
  client: S3Client,
  bucket: string,
  prefix: string,
): Promise<Array<{ key: string; etag: string; lastModified: string | null }>> {
  const out: Array<{ key: string; etag: string; lastModified: string | null }> = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new (await sdk()).ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) {
      if (object.Key)
        out.push({
          key: object.Key,
          etag: object.ETag ?? '',
          lastModified: object.LastModified?.toISOString() ?? null,
        });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

/** Deletes keys, 1,000 per DeleteObjects request. */
async function deleteKeys(client: S3Client, bucket: string, keys: readonly string[]) {
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    const out = await client.send(
      new (await sdk()).DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
      }),
    );
    const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
    if (failed.length > 0) {
      throw new Error(
        `could not delete ${failed.length} object(s), e.g. ${failed[0]!.Key}: ${failed[0]!.Code}`,
      );
    }
  }
}

async function inBatches<T>(items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, run));
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  json: 'application/json',
  map: 'application/json',
  webmanifest: 'application/manifest+json',
  xml: 'application/xml',
  rss: 'application/rss+xml',
  atom: 'application/atom+xml',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** The media type a file is stored (and served) with, from its extension. */
export function contentTypeOf(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return TYPES[ext] ?? 'application/octet-stream';
}
