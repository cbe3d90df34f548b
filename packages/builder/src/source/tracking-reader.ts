import { createHash, hash } from 'node:crypto';
import type { ArtifactDeps } from '@trelliscms/core/build';
import { canonicalJson, itemSlug } from '@trelliscms/core/build';
import { type SiteLocales, siteLocalesOf, stringsDepName, urlKeyOf } from '../plan/site-locales';
import type { SnapshotItem } from '../snapshot/types';
import type { ListQuery, SavedQueryRun, SimilarQuery, TraverseQuery } from './content-source';
import {
  ItemView,
  partialDep,
  type ReadRecorder,
  sortedKeys,
  touchView,
  type ViewRead,
  type ViewReads,
} from './field-deps';
import { itemHash } from './item-hash';
import type { SnapshotSource } from './snapshot-source';

export { ItemView } from './field-deps';

/** A query as recorded in an artifact's dependencies. */
export type QuerySpec =
  /** `collection`: the list of a site collection (`site.collections.<name>`) */
  | { kind: 'list'; query: ListQuery; collection?: string; groupBy?: string }
  | { kind: 'traverse'; query: TraverseQuery }
  | { kind: 'similar'; query: SimilarQuery }
  | { kind: 'query'; query: SavedQueryRun };

/**
 * An empty dependency record for one render. Its items and queries are keyed by ids and query
 * keys that differ from page to page: dictionaries from the start (null prototype), not objects
 * that get a new hidden class for every id a page adds (10,000 pages, 10,000 ids). Same keys, in
 * the same order, as JSON and for the build's thread.
 */
export function emptyDeps(): ArtifactDeps {
  return { items: Object.create(null), templates: {}, queries: Object.create(null) };
}

/** The canonical key of a query (stable JSON). */
export function queryKey(spec: QuerySpec): string {
  return JSON.stringify(spec);
}

const TRAVERSE_KEYS = ['from', 'edge', 'direction', 'depth', 'limit'];

/**
 * `queryKey({ kind: 'traverse', query })`, without walking the objects when the query has the
 * shape `{% traverse %}` gives it (these keys in this order, texts and safe integers); the same
 * text either way.
 */
export function traverseKey(query: TraverseQuery): string {
  let i = 0;
  for (const key in query) {
    if (key !== TRAVERSE_KEYS[i]) return queryKey({ kind: 'traverse', query });
    i++;
  }
  const { from, edge, direction, depth, limit } = query as unknown as Record<string, unknown>;
  if (
    i !== TRAVERSE_KEYS.length ||
    typeof from !== 'string' ||
    typeof edge !== 'string' ||
    typeof direction !== 'string' ||
    !Number.isSafeInteger(depth) ||
    !Number.isSafeInteger(limit)
  )
    return queryKey({ kind: 'traverse', query });
  return `{"kind":"traverse","query":{"from":${JSON.stringify(from)},"edge":${JSON.stringify(edge)},"direction":${JSON.stringify(direction)},"depth":${depth},"limit":${limit}}}`;
}

/**
 * Reads content for templates through a snapshot source and records what each artifact read
 * (items, queries with a hash of their results). One reader serves one render at a time:
 * `begin()` starts a fresh record, `deps` holds it once `collect()` has added the items read.
 *
 * Items are recorded per field: templates get tracked views (proxies) that note which keys a
 * page reads, and `collect()` records each item read with a hash of only those keys' values
 * (see `field-deps.ts`). Query results are recorded by what they hold (ids, order, URLs,
 * total), not by the content of their items, which the views record as they are read; a saved
 * query's rows (not views) count as reading their items whole.
 */
export class TrackingReader implements ReadRecorder {
  readonly source: SnapshotSource;
  readonly urls: ReadonlyMap<string, string>;
  deps: ArtifactDeps = emptyDeps();
  /** the locale of the page being rendered (null: the site is not localized) */
  locale: string | null = null;
  /** @internal the render in progress (views note their reads against it) */
  epoch = 0;
  /** @internal the views the render in progress read */
  readonly touched: ViewReads[] = [];
  /** @internal logs of the reads being recorded for replay (memoized partials) */
  readonly taps: ViewRead[][] = [];
  /** views in each locale, by item object (a localized page's) */
  private readonly views = new WeakMap<SnapshotItem, Map<string, ItemView>>();
  /**
   * views outside any locale, by item object (every view on a site without locales: no map per
   * item, each worker views most items of a site once)
   */
  private readonly plainViews = new WeakMap<SnapshotItem, ItemView>();
  private readonly depHashes = new WeakMap<SnapshotItem, string>();
  /**
   * partial dependency values by item object and keys read (as JSON), on a site with locales
   * (an item's views in several locales give the same values); without locales an item has one
   * view, whose sets of keys keep their values ({@link SortedKeys}'s `dep`)
   */
  private readonly partials = new WeakMap<SnapshotItem, Map<string, string>>();

  constructor(params: { source: SnapshotSource; urls: ReadonlyMap<string, string> }) {
    this.source = params.source;
    this.urls = params.urls;
  }

  /** the snapshot {@link locales} was looked up for, and what it gave */
  private localesData: object | null = null;
  private localesOfData: SiteLocales | null = null;

  /** The site's locales (of the source's current snapshot). */
  get locales(): SiteLocales {
    const data = this.source.data;
    if (data !== this.localesData || this.localesOfData === null) {
      this.localesOfData = siteLocalesOf(data);
      this.localesData = data;
    }
    return this.localesOfData;
  }

  /** Forgets what was remembered of an item object (its view and dependency hash hold its URL). */
  forget(item: SnapshotItem): void {
    this.views.delete(item);
    this.plainViews.delete(item);
    this.depHashes.delete(item);
    this.partials.delete(item);
  }

  /** Starts recording for a new artifact, rendered in `locale` (default: the site's default locale). */
  begin(locale: string | null = null): void {
    this.deps = emptyDeps();
    this.locale = locale ?? this.locales.defaultCode;
    this.epoch++;
    this.touched.length = 0;
  }

  /** Records an item as read whole (its full dependency hash), e.g. when a script sees all of it. */
  readAll(item: SnapshotItem): void {
    this.deps.items[item.id] = this.depHash(item);
  }

  /**
   * Adds the items the render read through their views to `deps.items`: each with the keys it
   * read (or whole), unless it is recorded whole already. Call once a render is done.
   */
  collect(): ArtifactDeps {
    const items = this.deps.items;
    const codes = this.locales.codes;
    for (const reads of this.touched) {
      if (reads.epoch !== this.epoch) continue;
      const { item } = reads;
      const before = items[item.id];
      // already recorded whole (or, never, gone)
      if (before !== undefined && !before.startsWith('f:')) continue;
      if (reads.all || before !== undefined) {
        // (the same item read through two objects: recorded whole)
        items[item.id] = this.depHash(item);
        continue;
      }
      const sorted = sortedKeys(reads);
      // kept with the set of keys of this view (a view is dropped with its item: `forget`)
      let value = sorted.dep;
      if (value === undefined && codes.length === 0) {
        value = partialDep(item, sorted.keys, sorted.json, this.urls, codes);
        sorted.dep = value;
      } else if (value === undefined) {
        let byKeys = this.partials.get(item);
        if (!byKeys) {
          byKeys = new Map();
          this.partials.set(item, byKeys);
        }
        value = byKeys.get(sorted.json);
        if (value === undefined) {
          value = partialDep(item, sorted.keys, sorted.json, this.urls, codes);
          byKeys.set(sorted.json, value);
        }
        sorted.dep = value;
      }
      items[item.id] = value;
    }
    this.touched.length = 0;
    return this.deps;
  }

  /** A UI string in the page's locale (or `locale`), recorded as a dependency; null when missing. */
  translate(key: string, locale?: string | null): string | null {
    const code = locale ?? this.locale;
    if (code === null) return null;
    this.deps.templates[stringsDepName(code)] = this.locales.stringsHash(code);
    return this.locales.translate(key, code);
  }

  /** The template view of an item in the page's locale (memoized): a tracked view that records the keys read. */
  view(item: SnapshotItem): ItemView {
    if (this.locale === null) {
      let view = this.plainViews.get(item);
      if (!view) {
        view = this.newView(item);
        this.plainViews.set(item, view);
      }
      return view;
    }
    let byLocale = this.views.get(item);
    if (!byLocale) {
      byLocale = new Map();
      this.views.set(item, byLocale);
    }
    let view = byLocale.get(this.locale);
    if (!view) {
      view = this.newView(item);
      byLocale.set(this.locale, view);
    }
    return view;
  }

  /** A new template view of an item in the page's locale. */
  private newView(item: SnapshotItem): ItemView {
    const localized = this.locale === null ? item : this.locales.localize(item, this.locale);
    const url =
      (this.locale === null ? undefined : this.urls.get(`${item.id}@${this.locale}`)) ??
      this.urls.get(item.id) ??
      null;
    // `{...fields, id, type, ...}`: the fields read from the item's own object (the long
    // values, bodies, left in shared memory), the keys after them from `meta`
    const meta: Record<string, unknown> & { id: string } = {
      id: item.id,
      type: item.type,
      slug: itemSlug(item),
      url,
      status: item.status ?? null,
      updatedAt: item.updatedAt ?? null,
      version: item.version ?? null,
      fields: localized.fields,
      relationships: item.relationships ?? {},
    };
    if (this.locale !== null) meta.locale = this.locale;
    return new ItemView(localized.fields as Record<string, unknown>, meta, item, this);
  }

  /**
   * An item's dependency hash: its content hash (with its values in every locale) and its URLs
   * (which its parent can change). Memoized per item object like {@link itemHash}: a reader
   * serves one snapshot, whose items are replaced, not changed in place.
   */
  depHash(item: SnapshotItem): string {
    let hash = this.depHashes.get(item);
    if (hash === undefined) {
      hash = `${itemHash(item)}|${urlKeyOf(this.urls, item.id, this.locales.codes)}`;
      this.depHashes.set(item, hash);
    }
    return hash;
  }

  /**
   * Reads an item by id and records it: a missing item with hash `''`, one found by the keys of
   * it the render reads (at least its existence).
   */
  item(id: string): ItemView | null {
    const item = this.source.item(id);
    if (!item) {
      this.deps.items[id] = '';
      return null;
    }
    const view = this.view(item);
    touchView(view);
    return view;
  }

  list(query: ListQuery): { items: ItemView[]; total: number } {
    const spec: QuerySpec = { kind: 'list', query };
    const result = this.source.list(query);
    this.deps.queries[queryKey(spec)] = resultHash(result.items, result.total, this.urls, this.locales.codes);
    return { items: result.items.map((item) => this.view(item)), total: result.total };
  }

  traverse(query: TraverseQuery): ItemView[] {
    const items = this.source.traverse(query);
    this.deps.queries[traverseKey(query)] = resultHash(items, items.length, this.urls, this.locales.codes);
    // The items reached are dependencies too (at least their existence): while the graph is
    // unchanged, they are all that can change the result (see graphHashOf).
    return items.map((item) => {
      const view = this.view(item);
      touchView(view);
      return view;
    });
  }

  /**
   * Runs a saved query (`{% query %}`) and records its result: the rows of
   * `POST /api/queries/{name}/run`, each with the `url` of its item's page.
   */
  query(query: SavedQueryRun): { items: Array<Record<string, unknown>>; total: number } {
    const result = this.source.runQuery(query);
    // rows are projections of their items (any field): the result's hash holds the items' content
    this.deps.queries[queryKey({ kind: 'query', query })] = resultHash(
      result.items,
      result.total,
      this.urls,
      [],
      {
        content: true,
      },
    );
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
    this.deps.queries[queryKey({ kind: 'similar', query })] = resultHash(
      items,
      items.length,
      this.urls,
      this.locales.codes,
    );
    return items.map((item) => this.view(item));
  }
}

/**
 * Hash of a query result: ids and URLs (in each locale of `codes`), in order, and the total;
 * with `content`, the items' hashes too (a result whose rows show any field), with `groupBy`
 * the value of that field of each item (a collection grouped by it). The content of the items
 * a page shows is recorded field by field as the page reads their views.
 */
export function resultHash(
  items: readonly SnapshotItem[],
  total: number,
  urls: ReadonlyMap<string, string>,
  codes: readonly string[] = [],
  options: { content?: boolean; groupBy?: string } = {},
): string {
  const { content = false, groupBy } = options;
  // One string hashed at once: the same digest as hashing the parts in turn, with fewer calls.
  let text = content ? `c${total}` : String(total);
  for (const item of items) {
    text += `\n${item.id}\t${content ? itemHash(item) : ''}\t${urlKeyOf(urls, item.id, codes)}`;
    if (groupBy !== undefined) text += `\t${canonicalJson(item.fields[groupBy] ?? null)}`;
  }
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
  const { codes } = siteLocalesOf(source.data);
  if (spec.kind === 'list') {
    const result = source.list(spec.query);
    return resultHash(result.items, result.total, urls, codes, { groupBy: spec.groupBy });
  }
  if (spec.kind === 'query') {
    // a query that fails now (gone, or its parameters no longer fit) is a change: the page renders and reports it
    try {
      const result = source.runQuery(spec.query);
      return resultHash(result.items, result.total, urls, [], { content: true });
    } catch {
      return '';
    }
  }
  const items = spec.kind === 'traverse' ? source.traverse(spec.query) : source.similar(spec.query);
  return resultHash(items, items.length, urls, codes);
}

/**
 * Hash of the edges whose both ends are visible in the source's environment. While it is
 * unchanged, every traversal returns the same items, so only their content can change it.
 */
export function graphHashOf(source: SnapshotSource): string {
  // the lines joined by newlines, hashed as they come (no string of every edge at once)
  const hash = createHash('sha1');
  let first = true;
  for (const edge of source.data.edges ?? []) {
    if (!source.item(edge.from) || !source.item(edge.to)) continue;
    hash.update(`${first ? '' : '\n'}${edge.from}\t${edge.edge}\t${edge.to}`);
    first = false;
  }
  return hash.digest('base64url');
}
