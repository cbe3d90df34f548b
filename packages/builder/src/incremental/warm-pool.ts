import type { WorkerPatch } from '../render/worker-protocol';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import { itemHash } from '../source/item-hash';
import { type EdgeList, edgeListOf, sameEdges } from './build-cache';

// What the warm render workers of a pool hold between builds, and the patch that brings them
// from one build's snapshot to the next.

/** Everything but the items: when it changes, workers reload the whole snapshot. */
export function structureKey(run: {
  snapshot: Snapshot;
  env: string;
  mediaBaseUrl?: string | null;
  limits?: unknown;
}): string {
  const { snapshot } = run;
  return JSON.stringify([
    run.env,
    run.mediaBaseUrl ?? null,
    run.limits ?? null,
    snapshot.site,
    snapshot.types,
    snapshot.templates,
    snapshot.routes ?? [],
    snapshot.views ?? [],
    snapshot.transforms ?? [],
    snapshot.widgets ?? [],
    snapshot.pageKits ?? [],
    snapshot.queries ?? [],
    snapshot.scripts ?? [],
    snapshot.locales ?? [],
    snapshot.translations ?? [],
    snapshot.assets ?? [],
  ]);
}

/** An item as the workers hold it. */
interface Held {
  item: SnapshotItem;
  /** its hash when sent (an item object may be changed in place afterwards) */
  hash: string;
  /** the last run that met it */
  run: number;
}

/** What every worker of a pool holds. */
export interface Loaded {
  /** the items, by id, as they were when sent (the caller may change its arrays later) */
  items: Map<string, Held>;
  edges: EdgeList;
  urls: Urls;
  key: string;
  /** runs that brought it up to date */
  runs: number;
}

export type Urls = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

function urlOf(urls: Urls, id: string): string | undefined {
  if (urls instanceof Map) return urls.get(id);
  const record = urls as Readonly<Record<string, string>>;
  return Object.hasOwn(record, id) ? record[id] : undefined;
}

function eachUrl(urls: Urls, visit: (id: string, url: string) => void): void {
  if (urls instanceof Map) for (const [id, url] of urls) visit(id, url);
  else {
    const record = urls as Readonly<Record<string, string>>;
    for (const id in record) visit(id, record[id]!);
  }
}

/** Whether two embeddings are the same numbers (a missing one and `null` are the same). */
function sameVector(
  a: readonly number[] | null | undefined,
  b: readonly number[] | null | undefined,
): boolean {
  if (a === b || (a == null && b == null)) return true;
  if (!a || !b) return false;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function loadedOf(snapshot: Snapshot, urls: Urls, key: string): Loaded {
  const items = new Map<string, Held>();
  for (const item of snapshot.items) items.set(item.id, { item, hash: itemHash(item), run: 0 });
  return { items, edges: edgeListOf(snapshot.edges), urls, key, runs: 0 };
}

/**
 * Brings what the workers hold up to `after` in place, and returns the patch that does the
 * same to a worker: changed or new items, removed ids, changed URLs. Null when a full reload
 * is simpler or needed (edges changed, many items changed, an id twice); `loaded` is spoilt then.
 */
export function advance(loaded: Loaded, after: Snapshot, urls: Urls): Omit<WorkerPatch, 'type'> | null {
  if (!sameEdges(loaded.edges, after.edges)) return null;
  const run = ++loaded.runs;
  const { items } = loaded;
  const known = items.size;
  const changed: SnapshotItem[] = [];
  let met = 0;
  for (const item of after.items) {
    const held = items.get(item.id);
    if (held === undefined) {
      changed.push(item);
      items.set(item.id, { item, hash: itemHash(item), run });
      continue;
    }
    if (held.run === run) return null;
    held.run = run;
    met++;
    const hash = itemHash(item);
    if (held.item === item && held.hash === hash) continue;
    if (held.hash !== hash || !sameVector(held.item.embedding, item.embedding)) changed.push(item);
    held.item = item;
    held.hash = hash;
  }
  const removed: string[] = [];
  if (met !== known) {
    for (const [id, held] of items) {
      if (held.run === run) continue;
      removed.push(id);
      items.delete(id);
    }
  }
  if (changed.length + removed.length > after.items.length / 4) return null;
  const urlChanges: Record<string, string | null> = {};
  const before = loaded.urls;
  if (before !== urls) {
    eachUrl(urls, (id, url) => {
      if (urlOf(before, id) !== url) urlChanges[id] = url;
    });
    eachUrl(before, (id) => {
      if (urlOf(urls, id) === undefined) urlChanges[id] = null;
    });
    loaded.urls = urls;
  }
  return { items: changed, removed, urls: urlChanges };
}
