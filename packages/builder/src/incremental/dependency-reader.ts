import type { DependencyReader } from '@trelliscms/core';
import type { ListIndex } from '../plan/list-index';
import { siteLocalesOf, urlKeyOf } from '../plan/site-locales';
import { currentPartialDep, isPartialDep, partialKeysJson } from '../source/field-deps';
import { itemHash } from '../source/item-hash';
import type { SnapshotSource } from '../source/snapshot-source';
import { currentQueryHash, type QuerySpec, resultHash } from '../source/tracking-reader';

const TRAVERSE_PREFIX = '{"kind":"traverse"';
const LIST_PREFIX = '{"kind":"list"';

/** The current hash of a recorded list query, from the list index (null: not a list key). */
function listQueryHash(
  key: string,
  lists: ListIndex,
  urls: ReadonlyMap<string, string>,
  codes: readonly string[],
): string | null {
  let spec: QuerySpec;
  try {
    spec = JSON.parse(key) as QuerySpec;
  } catch {
    return null;
  }
  if (spec.kind !== 'list') return null;
  const result = lists.list(spec.query);
  return resultHash(result.items, result.total, urls, codes, { groupBy: spec.groupBy });
}

/**
 * Answers the current hash of everything a page may have recorded (items with their URL,
 * templates, queries), each computed once per build. With `graphUnchanged`, traversals answer
 * what was recorded (the edges and items they walk are the same).
 */
export function dependencyReader(params: {
  source: SnapshotSource;
  urls: ReadonlyMap<string, string>;
  templateHashes: ReadonlyMap<string, string>;
  lists: ListIndex | null;
  graphUnchanged: boolean;
}): DependencyReader {
  const { source, urls, templateHashes, lists, graphUnchanged } = params;
  const queryCache = new Map<string, string>();
  const itemDeps = new Map<string, string>();
  /** partial dependencies by `<id>\n<keys read>` */
  const partials = new Map<string, string>();
  const { codes } = siteLocalesOf(source.data);
  return {
    itemHash: (id, recorded) => {
      if (recorded !== undefined && isPartialDep(recorded)) {
        const memo = `${id}\n${partialKeysJson(recorded)}`;
        let hash = partials.get(memo);
        if (hash === undefined) {
          hash = currentPartialDep(source.item(id) ?? null, recorded, urls, codes);
          partials.set(memo, hash);
        }
        return hash;
      }
      let hash = itemDeps.get(id);
      if (hash === undefined) {
        const item = source.item(id);
        hash = item ? `${itemHash(item)}|${urlKeyOf(urls, id, codes)}` : '';
        itemDeps.set(id, hash);
      }
      return hash;
    },
    templateHash: (name) => templateHashes.get(name) ?? '',
    queryHash: (key, recorded) => {
      if (graphUnchanged && key.startsWith(TRAVERSE_PREFIX)) return recorded;
      let hash = queryCache.get(key);
      if (hash === undefined) {
        hash =
          (lists && key.startsWith(LIST_PREFIX) ? listQueryHash(key, lists, urls, codes) : null) ??
          currentQueryHash(key, source, urls);
        queryCache.set(key, hash);
      }
      return hash;
    },
  };
}
