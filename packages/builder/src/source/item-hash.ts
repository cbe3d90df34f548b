import { createHash } from 'node:crypto';
import { canonicalJson } from '@trelliscms/core/build';
import type { SnapshotItem } from '../snapshot/types';

interface Cached {
  fields: unknown;
  relationships: unknown;
  publishedEnvs: unknown;
  status: unknown;
  given: unknown;
  version: unknown;
  updatedAt: unknown;
  translations: unknown;
  embedding: unknown;
  hash: string;
}

const cache = new WeakMap<SnapshotItem, Cached>();

/**
 * The content hash of an item as a build dependency: the snapshot's `hash` when the item
 * carries one, else the hash of what a template can see of it. Publishing state is part of
 * it, so publishing to an environment invalidates that environment's pages, and so is the
 * item's embedding (a `{% similar %}` result can change with it alone). Memoized per item
 * object; replacing a member (`item.fields = {...}`) is noticed, mutating one in place is not.
 * The item's values in other locales (`translations`) are part of it.
 */
export function itemHash(item: SnapshotItem): string {
  const cached = cache.get(item);
  if (
    cached &&
    cached.fields === item.fields &&
    cached.relationships === item.relationships &&
    cached.publishedEnvs === item.publishedEnvs &&
    cached.status === item.status &&
    cached.given === item.hash &&
    cached.version === item.version &&
    cached.updatedAt === item.updatedAt &&
    cached.translations === item.translations &&
    cached.embedding === item.embedding
  ) {
    return cached.hash;
  }
  const base =
    item.hash ??
    sha256({
      fields: item.fields,
      relationships: item.relationships ?? null,
      status: item.status ?? null,
      updatedAt: item.updatedAt ?? null,
      version: item.version ?? null,
    });
  // an item's values in other locales are not part of its stored hash
  const translated = item.translations ? `|${sha256(item.translations)}` : '';
  const vector = item.embedding && item.embedding.length > 0 ? `|e:${vectorHash(item.embedding)}` : '';
  const hash = `${base}|${(item.publishedEnvs ?? []).join(',')}|${item.status ?? ''}${translated}${vector}`;
  cache.set(item, {
    fields: item.fields,
    relationships: item.relationships,
    publishedEnvs: item.publishedEnvs,
    status: item.status,
    given: item.hash,
    version: item.version,
    updatedAt: item.updatedAt,
    translations: item.translations,
    embedding: item.embedding,
    hash,
  });
  return hash;
}

function sha256(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

/** A short hash of a vector's numbers (as float64). */
function vectorHash(vector: readonly number[]): string {
  return createHash('sha1').update(new Float64Array(vector)).digest('base64url').slice(0, 16);
}
