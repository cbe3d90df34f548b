import { parseSort, parseWhere } from '@trelliscms/core/build';
import type { SnapshotSite } from '../snapshot/types';
import type { ListQuery } from './content-source';
import { valueGroups } from './distinct-values';
import { type QuerySpec, queryKey, resultHash, type TrackingReader } from './tracking-reader';

/** A site collection's definition (core's `SiteCollection`). */
export type CollectionDefinition = NonNullable<SnapshotSite['collections']>[string];

/** The most items a collection holds unless its `limit` says otherwise. */
export const MAX_COLLECTION_ITEMS = 10_000;

interface Computed {
  key: string;
  hash: string;
  value: unknown;
}

/** The list query a collection runs (every matching item; `limit` is applied afterwards). */
export function collectionQuery(definition: CollectionDefinition): ListQuery {
  return {
    type: definition.type,
    where: parseWhere(definition.where ?? ''),
    sort: parseSort(definition.sort),
  };
}

/**
 * The site's collections for templates (`site.collections.<name>`): each computed once (per
 * renderer, until its snapshot changes) the first time a page reads it, and recorded as a
 * dependency of every page that reads it: a `list` query of all its matching items (with the
 * collection's name), so an incremental build re-renders exactly the pages that read a
 * collection whose items, order or URLs changed.
 *
 * A collection is the item views `where` and `sort` select (at most `limit`), or with `groupBy`
 * one group per distinct value of that field: `{value, slug, count, items}` in value order.
 */
export class SiteCollections {
  private readonly definitions: Readonly<Record<string, CollectionDefinition>>;
  private readonly computed = new Map<string, Computed>();

  constructor(params: { definitions: Readonly<Record<string, CollectionDefinition>> }) {
    this.definitions = params.definitions;
  }

  /** Forgets the computed collections (the snapshot changed). */
  clear(): void {
    this.computed.clear();
  }

  /** The object templates see as `site.collections`: one getter per collection that records the read. */
  scope(reader: TrackingReader): Record<string, unknown> {
    const scope: Record<string, unknown> = {};
    for (const name of Object.keys(this.definitions)) {
      Object.defineProperty(scope, name, { enumerable: true, get: () => this.read(name, reader) });
    }
    return scope;
  }

  private read(name: string, reader: TrackingReader): unknown {
    let computed = this.computed.get(name);
    if (!computed) {
      computed = this.compute(name, this.definitions[name]!, reader);
      this.computed.set(name, computed);
    }
    reader.deps.queries[computed.key] = computed.hash;
    return computed.value;
  }

  private compute(name: string, definition: CollectionDefinition, reader: TrackingReader): Computed {
    const query = collectionQuery(definition);
    const result = reader.source.list(query);
    const limit = definition.limit ?? MAX_COLLECTION_ITEMS;
    if (definition.limit === undefined && result.total > MAX_COLLECTION_ITEMS) {
      throw new Error(
        `site collection "${name}" matches ${result.total} items, more than ${MAX_COLLECTION_ITEMS}: nothing is cut silently; give it a limit or a narrower where`,
      );
    }
    const items = result.items.slice(0, limit);
    let value: unknown;
    if (definition.groupBy) {
      value = valueGroups(items, definition.groupBy).groups.map((group) => ({
        value: group.value,
        slug: group.slug,
        count: group.items.length,
        items: group.items.map((item) => reader.view(item)),
      }));
    } else {
      value = items.map((item) => reader.view(item));
    }
    // grouped: the groups (values, counts) come from each item's field, not from a view
    const spec: QuerySpec = {
      kind: 'list',
      query,
      collection: name,
      ...(definition.groupBy ? { groupBy: definition.groupBy } : {}),
    };
    const hash = resultHash(result.items, result.total, reader.urls, reader.locales.codes, {
      groupBy: definition.groupBy,
    });
    return { key: queryKey(spec), hash, value };
  }
}
