import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config';

/**
 * The S3-compatible bucket media files and published sites are kept in (`CMS_STORAGE=s3`,
 * docs/storage.md). Keys: `<prefix>media/assets/<sha256>.<ext>`, `<prefix>sites/<graph>/<env>/…`
 * (each environment's versions, manifests and pointer: builder's S3 deploy target),
 * `<prefix>previews/<graph>/<buildId>/…` and, for environments with a custom domain,
 * `<prefix>domains/<host>/…` (the flat layout).
 */
export interface ObjectStore {
  client: S3Client;
  bucket: string;
  /** '' or ending in `/` (S3_KEY_PREFIX) */
  prefix: string;
  /** the endpoint as configured (null: AWS's), for messages */
  endpoint: string | null;
}

/**
 * The object store the configuration names, or null with `CMS_STORAGE=local` (the AWS SDK is
 * then never loaded: importing it costs about a second).
 */
export async function objectStoreFrom(config: Config): Promise<ObjectStore | null> {
  if (config.CMS_STORAGE !== 's3' || !config.S3_BUCKET) return null;
  const { S3Client } = await import('@aws-sdk/client-s3');
  const endpoint = config.S3_ENDPOINT ?? null;
  const client = new S3Client({
    region: config.S3_REGION,
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: config.S3_FORCE_PATH_STYLE ?? endpoint !== null,
    ...(config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
      ? {
          credentials: {
            accessKeyId: config.S3_ACCESS_KEY_ID,
            secretAccessKey: config.S3_SECRET_ACCESS_KEY,
          },
        }
      : {}),
  });
  return { client, bucket: config.S3_BUCKET, prefix: config.S3_KEY_PREFIX, endpoint };
}

/**
 * Checks at start that the bucket exists and can be reached, with a message that says what to
 * do: the server never creates the bucket (where it lives, who may read it and how long it keeps
 * objects are the operator's choice).
 */
export async function assertBucketReachable(store: ObjectStore): Promise<void> {
  const where = `${store.endpoint ?? 'AWS S3'} (CMS_STORAGE=s3)`;
  try {
    const { HeadBucketCommand } = await import('@aws-sdk/client-s3');
    await store.client.send(new HeadBucketCommand({ Bucket: store.bucket }));
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const name = (error as { name?: string }).name;
    if (status === 404 || name === 'NotFound' || name === 'NoSuchBucket') {
      throw new Error(
        `the S3 bucket "${store.bucket}" does not exist at ${where}: create it first (e.g. aws s3 mb s3://${store.bucket}), or set S3_BUCKET to an existing one`,
      );
    }
    if (status === 401 || status === 403) {
      throw new Error(
        `the S3 bucket "${store.bucket}" at ${where} refused access (HTTP ${status}): check S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY and the bucket policy`,
      );
    }
    throw new Error(
      `the S3 bucket "${store.bucket}" at ${where} could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
