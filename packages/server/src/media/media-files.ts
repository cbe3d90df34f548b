import { createReadStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObjectStore } from '../shared/object-store';

/** One stored media file being read. */
export interface MediaFile {
  body: NodeJS.ReadableStream;
  bytes: number;
}

/**
 * Where media files are kept, one per content, named `<sha256>.<ext>`: a folder under
 * CMS_DATA_DIR or an S3-compatible bucket (CMS_STORAGE). Files are immutable: a name always
 * holds the same bytes.
 */
export interface MediaFiles {
  readonly kind: 'local' | 's3';
  /** stores a file unless one of that name is there (same name, same bytes) */
  put(name: string, content: Buffer, mimetype: string): Promise<void>;
  /** the file, or null when there is none */
  get(name: string): Promise<MediaFile | null>;
  /** deletes the file (nothing when there is none) */
  remove(name: string): Promise<void>;
}

/** The folder asset files live in: `<dataDir>/media/assets/`, one `<sha>.<ext>` per content. */
export function assetsDir(dataDir: string): string {
  return join(dataDir, 'media', 'assets');
}

/** Media files under `<dataDir>/media/assets/` (the default, CMS_STORAGE=local). */
export function localMediaFiles(dataDir: string): MediaFiles {
  const dir = assetsDir(dataDir);
  return {
    kind: 'local',
    async put(name, content) {
      const file = join(dir, name);
      if (existsSync(file)) return;
      await mkdir(dir, { recursive: true });
      const temp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
      await writeFile(temp, content);
      await rename(temp, file);
    },
    async get(name) {
      const file = join(dir, name);
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return null;
      return { body: createReadStream(file), bytes: info.size };
    },
    async remove(name) {
      await rm(join(dir, name), { force: true });
    },
  };
}

/** The AWS SDK, loaded on first use (importing it costs about a second; a local store never does). */
const sdk = () => import('@aws-sdk/client-s3');

/** Files larger than this go up as a multipart upload. */
const MULTIPART_BYTES = 8 * 1024 * 1024;

function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Media files in an S3-compatible bucket, at `<prefix>media/assets/<name>` (CMS_STORAGE=s3). */
export function s3MediaFiles(store: ObjectStore): MediaFiles {
  const { client, bucket } = store;
  const keyOf = (name: string) => `${store.prefix}media/assets/${name}`;
  return {
    kind: 's3',
    async put(name, content, mimetype) {
      const key = keyOf(name);
      try {
        await client.send(new (await sdk()).HeadObjectCommand({ Bucket: bucket, Key: key }));
        return;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      const params = {
        Bucket: bucket,
        Key: key,
        Body: content,
        ContentType: mimetype,
        CacheControl: 'public, max-age=31536000, immutable',
      };
      if (content.length > MULTIPART_BYTES) {
        const { Upload } = await import('@aws-sdk/lib-storage');
        await new Upload({ client, params, partSize: MULTIPART_BYTES, queueSize: 4 }).done();
      } else {
        await client.send(new (await sdk()).PutObjectCommand(params));
      }
    },
    async get(name) {
      try {
        const out = await client.send(
          new (await sdk()).GetObjectCommand({ Bucket: bucket, Key: keyOf(name) }),
        );
        return { body: out.Body as NodeJS.ReadableStream, bytes: out.ContentLength ?? 0 };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async remove(name) {
      await client.send(new (await sdk()).DeleteObjectCommand({ Bucket: bucket, Key: keyOf(name) }));
    },
  };
}

/** The media files of the configuration: the bucket with CMS_STORAGE=s3, else the data folder. */
export function mediaFilesFor(store: ObjectStore | null, dataDir: string): MediaFiles {
  return store ? s3MediaFiles(store) : localMediaFiles(dataDir);
}
