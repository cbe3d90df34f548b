import type { BuildManifest, ManifestArtifact, OutputChannel } from '@trelliscms/core';
import type { WriteSession } from '../deploy/types';
import { localeExtras } from '../emit/locale-files';
import { miniSearchBrowserBuild, SEARCH_SCRIPT } from '../emit/search-client';
import {
  buildShardIndex,
  type SearchDoc,
  searchDocWithHash,
  searchManifest,
  searchShard,
  searchShardCount,
  searchVectors,
  shardOf,
} from '../emit/search-index';
import { ShardIndexWorker, shardWorkerMinDocs } from '../emit/shard-index-worker';
import { renderSitemap, type SitemapEntry } from '../emit/sitemap';
import {
  type BuildCache,
  type BuildState,
  type DocEntry,
  type ItemEntry,
  isPageKey,
  type SearchUpdate,
} from '../incremental/build-cache';
import { relativeUrl } from '../liquid/filters';
import type { ArtifactSpec, BuildPlan } from '../plan/plan-artifacts';
import { itemIdOfKey, siteLocalesOf } from '../plan/site-locales';
import { hashText } from '../render/renderer';
import type { Snapshot, SnapshotView } from '../snapshot/types';
import type { SnapshotSource } from '../source/snapshot-source';
import type { Changes } from './detect-changes';
import type { LoadedContent } from './load';
import { isFeed, type Planned } from './plan';
import type { Selection } from './select-work';

/** A file the build writes besides the pages. */
export interface Extra {
  key: string;
  file: string;
  /** null once written through the build's session (emit writes each file as it is made) */
  content: string | null;
  hash: string;
  /** the content's length in bytes (UTF-8) */
  bytes: number;
  deps?: ManifestArtifact['deps'];
}

/** Lets the event loop run (the render workers' messages) between slices of emitting. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Search documents made between two yields to the event loop. */
const DOCS_PER_SLICE = 2_000;

/** The hash of a fixed file (search.js, minisearch.js: the same string each build), kept by the cache. */
function fixedHash(content: string, memo: Map<string, string> | null): string {
  let hash = memo?.get(content);
  if (hash === undefined) {
    hash = hashText(content);
    if (memo) {
      if (memo.size > 16) memo.clear();
      memo.set(content, hash);
    }
  }
  return hash;
}

/** The files of a build besides its pages, and the search documents to keep for the next build. */
export interface Emitted {
  /** files to write */
  extras: Extra[];
  /** files of the previous build that stay as they are */
  extraCarried: ManifestArtifact[];
  search: SearchUpdate | null;
}

/**
 * Stage 6, emit: `sitemap.xml` and the search index (they need no rendered page, so they are
 * made while the pages render). Building on a prior build (`prior`), the sitemap is carried
 * when no page appeared, moved or went and no page's `updatedAt` changed, and only search
 * shards holding a changed item are hashed (and rebuilt when their documents changed).
 * Asynchronous: it yields to the event loop between slices of documents and while a search
 * shard is made in its worker, so the render workers get their next chunks meanwhile. With a
 * `session`, each file is written through it as soon as it is made (its `content` is then null):
 * no file waits in memory for the commit.
 */
export async function emit(params: {
  content: LoadedContent;
  plan: BuildPlan;
  changes: Changes;
  planned: Planned;
  selection: Selection;
  cache: BuildCache | null;
  /** the output channels of the build (default all): `sitemap` and `search` are emitted here */
  channels?: ReadonlySet<OutputChannel>;
  /** the build's write session: files are written as they are made */
  session?: WriteSession | null;
}): Promise<Emitted> {
  const incremental = params.selection.mode === 'incremental' ? params.selection : null;
  return emitExtras({
    snapshot: params.content.snapshot,
    source: params.content.source,
    plan: params.plan,
    items: params.changes.items,
    previous: incremental?.previous ?? null,
    prior: incremental?.extending ?? null,
    contentChanged: params.changes.contentChanged,
    depChanged: params.planned.depChanged,
    structural: incremental?.structural ?? [],
    fixedHashes: params.cache?.fixedHashes ?? null,
    sitemap: params.channels?.has('sitemap') ?? true,
    search: params.channels?.has('search') ?? true,
    // without a cache, no next build reads the search documents
    keepDocs: params.cache !== null,
    session: params.session ?? null,
  });
}

async function emitExtras(params: {
  snapshot: Snapshot;
  source: SnapshotSource;
  plan: { artifacts: readonly ArtifactSpec[] };
  items: ReadonlyMap<string, ItemEntry>;
  /** the previous manifest, when this build is incremental */
  previous: BuildManifest | null;
  prior: BuildState | null;
  contentChanged: ReadonlySet<string>;
  depChanged: ReadonlySet<string>;
  structural: readonly string[];
  fixedHashes: Map<string, string> | null;
  /** emit `sitemap.xml` */
  sitemap: boolean;
  /** emit the search index */
  search: boolean;
  /** keep the search documents for the next build (the cache's `SearchUpdate`) */
  keepDocs: boolean;
  session: WriteSession | null;
}): Promise<Emitted> {
  const { snapshot, source, plan, items, previous, prior, contentChanged, depChanged, structural } = params;
  const publicUrl = snapshot.site.publicUrl ?? null;
  const extras: Extra[] = [];
  const extraCarried: ManifestArtifact[] = [];
  const before: ReadonlyMap<string, ManifestArtifact> =
    prior?.byKey ??
    new Map((previous?.artifacts ?? []).filter((a) => !isPageKey(a.key)).map((a) => [a.key, a]));
  const { session } = params;
  // a file made: written through the session at once (then its content is not kept)
  const add = async (extra: Omit<Extra, 'bytes' | 'content'> & { content: string }) => {
    const bytes = Buffer.byteLength(extra.content);
    if (!session) {
      extras.push({ ...extra, bytes });
      return;
    }
    await session.writeFile(extra.file, extra.content);
    extras.push({ ...extra, content: null, bytes });
  };
  const offer = async (
    extra: Omit<Extra, 'hash' | 'bytes' | 'content'> & { content: string },
    hash: string,
  ) => {
    const old = before.get(extra.key);
    if (prior && old && old.file === extra.file && old.hash === hash) extraCarried.push(old);
    else await add({ ...extra, hash });
  };

  let sitemapDirty = prior === null || structural.length > 0;
  if (prior && !sitemapDirty) {
    for (const id of contentChanged) {
      const now = items.get(id);
      const then = prior.items.get(id);
      if (!now || !then || now.updatedAt !== then.updatedAt) {
        sitemapDirty = true;
        break;
      }
    }
  }
  const oldSitemap = before.get('file:sitemap.xml');
  if (!params.sitemap) {
    // not emitted by this build
  } else if (!sitemapDirty && oldSitemap?.file === 'sitemap.xml') extraCarried.push(oldSitemap);
  else {
    const itemsById = new Map(snapshot.items.map((item) => [item.id, item]));
    const sitemapEntries: SitemapEntry[] = [];
    for (const a of plan.artifacts) {
      // file routes (a feed, a 404 page) are not pages of the sitemap
      if (a.kind === 'route' ? a.route.kind === 'redirect' || isFeed(a) || !a.path.endsWith('/') : a.stub)
        continue;
      // a view's SEO: `noindex` keeps its pages out, `canonicalUrl` is its first page's URL
      const seo = a.kind === 'route' ? (a.route as SnapshotView).seo : undefined;
      if (seo?.noindex) continue;
      sitemapEntries.push({
        path: a.path,
        lastmod: a.kind === 'item' ? (itemsById.get(a.itemId)?.updatedAt ?? null) : null,
        ...(a.kind === 'route' && a.page === 1 && seo?.canonicalUrl ? { loc: seo.canonicalUrl } : {}),
      });
    }
    const content = renderSitemap({ entries: sitemapEntries, publicUrl });
    await offer({ key: 'file:sitemap.xml', file: 'sitemap.xml', content }, hashText(content));
    await yieldToLoop();
  }

  // a localized site: a sitemap and a search index per locale, made whole each build
  const locales = siteLocalesOf(snapshot);
  const emission = snapshot.site.searchEmission ?? 'bm25';
  if (locales.isLocalized) {
    for (const extra of localeExtras({
      snapshot,
      source,
      plan,
      locales,
      search: emission !== 'none' && params.search,
    })) {
      await offer(extra, hashText(extra.content));
    }
  }
  // the site-wide search index holds each item once: a localized item at its default locale's page
  const isIndexed = (a: ArtifactSpec): a is ArtifactSpec & { kind: 'item' } =>
    a.kind === 'item' && !a.stub && (a.locale === undefined || a.locale === locales.defaultCode);

  if (emission === 'none' || !params.search) return { extras, extraCarried, search: null };
  const types = new Map(snapshot.types.map((type) => [type.name, type]));
  const makeDoc = (a: ArtifactSpec & { kind: 'item' }): DocEntry => {
    const entry = items.get(a.itemId);
    const dep = entry ? `${entry.hash}|${entry.url}` : '';
    const old = prior?.search?.docs.get(a.itemId);
    if (old && entry && old.dep === dep) return old;
    const item = source.item(a.itemId);
    if (!item) throw new Error(`planned item ${a.itemId} is not in the snapshot`);
    const { doc, hash } = searchDocWithHash(
      item,
      types.get(item.type),
      relativeUrl(a.path, { publicUrl }),
      params.keepDocs,
    );
    return { dep, doc, hash };
  };
  let docCount = 0;
  for (const a of plan.artifacts) if (isIndexed(a)) docCount++;
  const count = searchShardCount(docCount);
  // Shards that may have changed (null: all), and what they hold now.
  let dirty: Set<number> | null = null;
  let search: SearchUpdate;
  const groups: Array<Array<{ doc: SearchDoc; hash: string }>> = Array.from({ length: count }, () => []);
  const delta = prior?.search && prior.search.members.length === count ? prior.search : null;
  if (delta) {
    // Building on the prior build: only items whose dependency hash or page changed can have
    // another document or shard; the rest of each shard is what the prior build recorded.
    const touched = new Set(depChanged);
    for (const key of structural) if (key.startsWith('item:')) touched.add(itemIdOfKey(key));
    const updates = new Map<string, DocEntry | null>();
    let made = 0;
    for (const a of plan.artifacts) {
      if (isIndexed(a) && touched.has(a.itemId)) {
        updates.set(a.itemId, makeDoc(a));
        if (++made % DOCS_PER_SLICE === 0) await yieldToLoop();
      }
    }
    let size = delta.docs.size;
    for (const id of touched) {
      if (!updates.has(id)) updates.set(id, null);
      const had = delta.docs.has(id);
      const has = updates.get(id) !== null;
      if (had !== has) size += has ? 1 : -1;
    }
    if (size === docCount) {
      dirty = new Set();
      const members = new Map<number, Set<string>>();
      for (const id of touched) {
        const s = shardOf(id, count);
        dirty.add(s);
        let set = members.get(s);
        if (!set) {
          set = new Set(delta.members[s]);
          members.set(s, set);
        }
        if (updates.get(id)) set.add(id);
        else set.delete(id);
      }
      for (const [s, set] of members) {
        for (const id of set) {
          const entry = updates.get(id) ?? delta.docs.get(id);
          if (entry) groups[s]?.push(entry);
        }
      }
      search = { kind: 'delta', updates, members };
    }
  }
  search ??= await (async () => {
    const docs = new Map<string, DocEntry>();
    const members: Array<Set<string>> = Array.from({ length: count }, () => new Set());
    let made = 0;
    for (const a of plan.artifacts) {
      if (!isIndexed(a)) continue;
      const entry = makeDoc(a);
      const s = shardOf(a.itemId, count);
      if (params.keepDocs) {
        docs.set(a.itemId, entry);
        members[s]?.add(a.itemId);
      }
      groups[s]?.push(entry);
      if (++made % DOCS_PER_SLICE === 0) await yieldToLoop();
    }
    dirty = null;
    return { kind: 'all', docs, members } as const;
  })();
  const withVectors = emission === 'bm25+vector';
  // a large site's shards are made in a worker (see ShardIndexWorker), started when the first is needed
  let shardWorker: ShardIndexWorker | null = null;
  const shardIndex = async (docs: readonly SearchDoc[]): Promise<string> => {
    if (docCount < shardWorkerMinDocs.value) return buildShardIndex(docs);
    shardWorker ??= new ShardIndexWorker();
    return await shardWorker.build(docs);
  };
  try {
    for (let s = 0; s < count; s++) {
      const key = `search:${s}`;
      const file = `search/index-${s}.json`;
      const vkey = `search-vectors:${s}`;
      const vfile = `search/vectors-${s}.json`;
      const old = before.get(key);
      const vold = before.get(vkey);
      if (dirty && !dirty.has(s)) {
        if (old?.file === file && (!withVectors || vold?.file === vfile)) {
          extraCarried.push(old);
          if (withVectors && vold) extraCarried.push(vold);
          continue;
        }
        // its files are missing from the prior build: make them from the recorded documents
        for (const id of delta?.members[s] ?? []) {
          const entry = delta?.docs.get(id);
          if (entry) groups[s]?.push(entry);
        }
      }
      const shard = searchShard(s, groups[s] ?? []);
      // this shard's documents are not needed past here (a one-shot build keeps none)
      groups[s] = [];
      const deps = { items: {}, templates: {}, queries: { docs: shard.docsHash } };
      if (old && old.file === file && old.deps.queries.docs === shard.docsHash) extraCarried.push(old);
      else {
        const content = await shardIndex(shard.docs);
        await add({ key, file, content, hash: hashText(content), deps });
      }
      if (withVectors) {
        // the embeddings can change without the documents (materialized, another provider)
        const content = searchVectors(shard.docs.map((doc) => [doc.id, source.item(doc.id)?.embedding]));
        const hash = hashText(content);
        if (vold && vold.file === vfile && vold.hash === hash) extraCarried.push(vold);
        else await add({ key: vkey, file: vfile, content, hash, deps });
      }
      await yieldToLoop();
    }
  } finally {
    (shardWorker as ShardIndexWorker | null)?.close();
  }
  const manifestContent = searchManifest({
    shards: count,
    vectors: withVectors,
    embedding: withVectors ? (snapshot.embeddings ?? null) : null,
    base: relativeUrl('/', { publicUrl }).slice(0, -1),
  });
  await offer(
    { key: 'file:search/manifest.json', file: 'search/manifest.json', content: manifestContent },
    fixedHash(manifestContent, params.fixedHashes),
  );
  await offer(
    { key: 'file:search/search.js', file: 'search/search.js', content: SEARCH_SCRIPT },
    fixedHash(SEARCH_SCRIPT, params.fixedHashes),
  );
  const miniSearch = miniSearchBrowserBuild();
  await offer(
    { key: 'file:search/minisearch.js', file: 'search/minisearch.js', content: miniSearch },
    fixedHash(miniSearch, params.fixedHashes),
  );
  return { extras, extraCarried, search: params.keepDocs ? search : null };
}
