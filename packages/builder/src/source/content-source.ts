import type { WhereCondition } from '@trelliscms/core/build';
import type { Snapshot, SnapshotItem, SnapshotSite, SnapshotTemplate, SnapshotType } from '../snapshot/types';

/** A value or a promise of it: the snapshot source answers synchronously, API and engine sources asynchronously. */
export type MaybePromise<T> = T | Promise<T>;

/** Query of `{% list %}` and of paginated routes. */
export interface ListQuery {
  type: string;
  /** conditions joined with `and`: `<field> <op> <value>`, op one of `== != > >= < <= contains` */
  where?: WhereCondition[];
  /** sort keys; `-` prefix for descending. Ties break on id. */
  sort?: string[];
  limit?: number;
  offset?: number;
}

/** One condition of a `where` (core's list language). */
export type { WhereCondition } from '@trelliscms/core/build';

export interface ListResult {
  items: SnapshotItem[];
  /** count matching the filter, independent of limit/offset */
  total: number;
}

export interface TraverseQuery {
  /** the start item's id */
  from: string;
  /** edge label, e.g. `RELATED`; `*` for any */
  edge: string;
  direction: 'out' | 'in' | 'both';
  /** 1–3 */
  depth: number;
  limit?: number;
}

/** A run of a saved query (`{% query %}`): its name, parameter values and paging. */
export interface SavedQueryRun {
  name: string;
  params?: Record<string, unknown>;
  limit?: number;
  offset?: number;
}

export interface SimilarQuery {
  from: string;
  limit: number;
}

/**
 * Where a build reads its content. Implementations: {@link SnapshotSource} (a snapshot in
 * memory) and `ApiSource` (the live API, `cms-build --api`). `build()`'s load stage reads
 * `snapshot()` once; the later stages read the transformed snapshot through a
 * `SnapshotSource`, and the template tags (`{% list %}`, `{% traverse %}`, `{% similar %}`)
 * answer through the same queries. Every read may be synchronous or return a promise.
 */
export interface ContentSource {
  /** the site's settings */
  site(): MaybePromise<SnapshotSite>;
  /** every content type */
  types(): MaybePromise<SnapshotType[]>;
  /** every template (head versions) */
  templates(): MaybePromise<SnapshotTemplate[]>;
  /** the item with this id, or null */
  item(id: string): MaybePromise<SnapshotItem | null>;
  /** items of a type, filtered, sorted and paged */
  list(query: ListQuery): MaybePromise<ListResult>;
  /** items reached from an item along edges, breadth first, without the start item */
  traverse(query: TraverseQuery): MaybePromise<SnapshotItem[]>;
  /** nearest items by embedding (cosine); empty when the site has no embeddings */
  similar(query: SimilarQuery): MaybePromise<SnapshotItem[]>;
  /** the whole site as a snapshot: what a build ships to its render workers */
  snapshot(): MaybePromise<Snapshot>;
}
