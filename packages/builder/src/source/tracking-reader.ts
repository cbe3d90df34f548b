import { createHash, hash } from 'node:crypto';
import type { ArtifactDeps } from '@trelliscms/core/build';
import { itemSlug } from '@trelliscms/core/build';
import type { SnapshotItem } from '../snapshot/types';
import type { ListQuery, SavedQueryRun, SimilarQuery, TraverseQuery } from './content-source';
import { itemHash } from './item-hash';
import type { SnapshotSource } from './snapshot-source';

/** What a template sees of an item: its fields at top level, plus `id`, `type`, `slug`, `url` and metadata. */
export type ItemView = Record<string, unknown> & {
  id: string;
  type: string;
  slug: string;
  url: string | null;
};

/** A query as recorded in an artifact's dependencies. */
export type QuerySpec =
  | { kind: 'list'; query: ListQuery }
  | { kind: 'traverse'; query: TraverseQuery }
  | { kind: 'similar'; query: SimilarQuery }
  | { kind: 'query'; query: SavedQueryRun };

/** The canonical key of a query (stable JSON). */
export function queryKey(spec: QuerySpec): string {
  return JSON.stringify(spec);
}

/**
 * Reads content for templates through a snapshot source and records what each artifact read
 * (items, queries with a hash of their results). One reader serves one render at a time:
 * `begin()` starts a fresh record, `deps` holds it.
 */
export class TrackingReader {
  readonly source: SnapshotSource;
  readonly urls: ReadonlyMap<string, string>;
  deps: ArtifactDeps = { items: {}, templates: {}, queries: {} };
  private readonly views = new WeakMap<SnapshotItem, ItemView>();
  private readonly depHashes = new WeakMap<SnapshotItem, string>();

  constructor(params: { source: SnapshotSource; urls: ReadonlyMap<string, string> }) {
    this.source = params.source;
    this.urls = params.urls;
  }

  /** Forgets what was remembered of an item object (its view and dependency hash hold its URL). */
  forget(item: SnapshotItem): void {
    this.views.delete(item);
    this.depHashes.delete(item);
  }

  /** Starts recording for a new artifact. */
  begin(): void {
    this.deps = { items: {}, templates: {}, queries: {} };
  }

  /** The template view of an item (memoized). */
  view(item: SnapshotItem): ItemView {
    let view = this.views.get(item);
    if (!view) {
      view = {
        ...item.fields,
        id: item.id,
        type: item.type,
        slug: itemSlug(item),
        url: this.urls.get(item.id) ?? null,
        status: item.status ?? null,
        updatedAt: item.updatedAt ?? null,
        version: item.version ?? null,
        fields: item.fields,
        relationships: item.relationships ?? {},
      };
      this.views.set(item, view);
    }
    return view;
  }

  /**
   * An item's dependency hash: its content hash and its URL (which its parent can change).
   * Memoized per item object like {@link itemHash}: a reader serves one snapshot, whose items
   * are replaced, not changed in place.
   */
  depHash(item: SnapshotItem): string {
    let hash = this.depHashes.get(item);
    if (hash === undefined) {
      hash = `${itemHash(item)}|${this.urls.get(item.id) ?? ''}`;
      this.depHashes.set(item, hash);
    }
    return hash;
  }

  /** Reads an item by id and records it (a missing item is recorded with hash `''`). */
  item(id: string): ItemView | null {
    const item = this.source.item(id);
    this.deps.items[id] = item ? this.depHash(item) : '';
    return item ? this.view(item) : null;
  }

  list(query: ListQuery): { items: ItemView[]; total: number } {
    const spec: QuerySpec = { kind: 'list', query };
    const result = this.source.list(query);
    this.deps.queries[queryKey(spec)] = resultHash(result.items, result.total, this.urls);
    return { items: result.items.map((item) => this.view(item)), total: result.total };
  }

  traverse(query: TraverseQuery): ItemView[] {
    const items = this.source.traverse(query);
    this.deps.queries[queryKey({ kind: 'traverse', query })] = resultHash(items, items.length, this.urls);
    // The items reached are dependencies too: while the graph is unchanged, they are all that
    // can change the result (see graphHashOf).
    for (const item of items) this.deps.items[item.id] = this.depHash(item);
    return items.map((item) => this.view(item));
  }

  /**
   * Runs a saved query (`{% query %}`) and records its result: the rows of
   * `POST /api/queries/{name}/run`, each with the `url` of its item's page.
   */
  query(query: SavedQueryRun): { items: Array<Record<string, unknown>>; total: number } {
    const result = this.source.runQuery(query);
    this.deps.queries[queryKey({ kind: 'query', query })] = resultHash(result.items, result.total, this.urls);
    return {
      items: result.rows.map((row, index) => ({
        ...row,
        url: this.urls.get(result.items[index]!.id) ?? null,
      })),
      total: result.total,
    };
  }

  similar(query: SimilarQuery): ItemView[] {
    const items = this.source.similar(query);
    this.deps.queries[queryKey({ kind: 'similar', query })] = resultHash(items, items.length, this.urls);
    return items.map((item) => this.view(item));
  }
}

/** Hash of a query result: ids, item hashes and URLs, and the total. */
export function resultHash(
  items: readonly SnapshotItem[],
  total: number,
  urls: ReadonlyMap<string, string>,
): string {
  // One string hashed at once: the same digest as hashing the parts in turn, with fewer calls.
  let text = String(total);
  for (const item of items) text += `\n${item.id}\t${itemHash(item)}\t${urls.get(item.id) ?? ''}`;
  return hash('sha1', text, 'base64url');
}

/** Re-runs a recorded query against a source: the current hash of its result (for incremental planning). */
export function currentQueryHash(
  key: string,
  source: SnapshotSource,
  urls: ReadonlyMap<string, string>,
): string {
  let spec: QuerySpec;
  try {
    spec = JSON.parse(key) as QuerySpec;
  } catch {
    return '';
  }
  if (spec.kind === 'list') {
    const result = source.list(spec.query);
    return resultHash(result.items, result.total, urls);
  }
  if (spec.kind === 'query') {
    // a query that fails now (gone, or its parameters no longer fit) is a change: the page renders and reports it
    try {
      const result = source.runQuery(spec.query);
      return resultHash(result.items, result.total, urls);
    } catch {
      return '';
    }
  }
  const items = spec.kind === 'traverse' ? source.traverse(spec.query) : source.similar(spec.query);
  return resultHash(items, items.length, urls);
}

/**
 * Hash of the edges whose both ends are visible in the source's environment. While it is
 * unchanged, every traversal returns the same items, so only their content can change it.
 */
export function graphHashOf(source: SnapshotSource): string {
  const lines: string[] = [];
  for (const edge of source.data.edges ?? []) {
    if (source.item(edge.from) && source.item(edge.to)) lines.push(`${edge.from}\t${edge.edge}\t${edge.to}`);
  }
  return createHash('sha1').update(lines.join('\n')).digest('base64url');
}
