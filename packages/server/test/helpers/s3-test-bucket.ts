import { randomBytes } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';

/**
 * The S3-compatible server of the object-storage tests: `S3_TEST_ENDPOINT` (tools/s3-harness,
 * `pnpm s3:start`; .ci/run exports it). Unset: those tests skip.
 */
export const s3TestEndpoint = process.env.S3_TEST_ENDPOINT;

export interface S3TestBucket {
  name: string;
  client: S3Client;
  /** The server configuration of CMS_STORAGE=s3 on this bucket. */
  env: Record<string, string>;
  /** Every key under `prefix`, sorted. */
  keys(prefix?: string): Promise<string[]>;
  /** The bytes of one object. */
  bytes(key: string): Promise<Buffer>;
  /** Deletes every object and the bucket. */
  remove(): Promise<void>;
}

/** Creates a bucket of its own (random name) on {@link s3TestEndpoint}. */
export async function createS3TestBucket(): Promise<S3TestBucket> {
  if (!s3TestEndpoint) throw new Error('S3_TEST_ENDPOINT is not set');
  const name = `trellis-test-${randomBytes(5).toString('hex')}`;
  const client = new S3Client({
    endpoint: s3TestEndpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await client.send(new CreateBucketCommand({ Bucket: name }));
  const keys = async (prefix = '') => {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: name, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) out.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  };
  return {
    name,
    client,
    env: {
      CMS_STORAGE: 's3',
      S3_ENDPOINT: s3TestEndpoint,
      S3_BUCKET: name,
      S3_ACCESS_KEY_ID: 'test',
      S3_SECRET_ACCESS_KEY: 'test',
      S3_KEY_PREFIX: 'cms',
    },
    keys,
    async bytes(key) {
      const out = await client.send(new GetObjectCommand({ Bucket: name, Key: key }));
      return Buffer.from(await out.Body!.transformToByteArray());
    },
    async remove() {
      const all = await keys();
      for (let i = 0; i < all.length; i += 1000) {
        await client.send(
          new DeleteObjectsCommand({
            Bucket: name,
            Delete: { Objects: all.slice(i, i + 1000).map((Key) => ({ Key })) },
          }),
        );
      }
      await client.send(new DeleteBucketCommand({ Bucket: name }));
      client.destroy();
    },
  };
}
