import {
  type BlockType,
  type LiveEntry,
  type PageKit,
  type Route,
  type SavedQuery,
  type Script,
  type SiteSnapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type SnapshotItem,
  type Transform,
  type View,
  type Widget,
} from '@trelliscms/core';
import { embeddingSets } from '../content/embeddings/keep-embeddings';
import { relationshipsOf, toContentRecord, typeOfId } from '../content/item-record';
import { listTypes } from '../content/type-repository';
import { VERSION_LABEL, versionNodeId } from '../content/versions';
import type { GraphEdge, GraphNode, GraphReader } from '../engines/port';
import { MEDIA_LABEL, toMediaAsset } from '../media/media-store';
import type { SiteView } from '../platform/sites';
import type { Clock } from '../shared/clock';
import { nodePages } from '../shared/node-pages';
import { itemTranslationsByItem, listLocaleStrings, listLocales } from '../site-resources/locales';
import { OTHER_RESOURCES, QUERIES, ROUTES, TRANSFORMS, VIEWS } from '../site-resources/resource-specs';
import { listSiteResources } from '../site-resources/site-resources';
import { listTemplates } from '../site-resources/template-repository';

const PAGE = 5000;

/** One of the other site resource namespaces, by its path segment. */
function resourceSpec(base: string) {
  const spec = OTHER_RESOURCES.find((candidate) => candidate.base === base);
  if (!spec) throw new Error(`no site resource ${base}`);
  return spec;
}

/**
 * Reads everything a build needs from a site graph into one snapshot (the documented
 * `trellis-snapshot` format of core `schemas/snapshot.ts`, also the body of GET /api/export):
 * the site settings, content types, every item with its version, hash, status and
 * published environments, the relationship edges between items, templates at their head
 * version, transforms, routes, views and saved queries, block types, widgets and page kits, and each
 * item's embedding (with how the embeddings were made, `embeddings`, when a type was materialized).
 *
 * With `live` (the live state of environment `env`, see releases/live-state.ts), every item
 * live there is taken at its live version, published to `env` only, and every other item at
 * its head, published nowhere (the build gives it the stub page); an item deleted since its
 * version went live is taken from that version. Relationships are not versioned: an item is
 * taken with its current edges.
 */
export async function takeSnapshot({
  graph,
  site,
  clock,
  env,
  live,
}: {
  graph: GraphReader;
  site: SiteView;
  clock: Clock;
  env?: string;
  live?: ReadonlyMap<string, LiveEntry> | null;
}): Promise<SiteSnapshot> {
  const types = await listTypes(graph);
  const locales = await listLocales(graph);
  const itemTranslations = locales.length > 0 ? await itemTranslationsByItem(graph) : new Map();
  const items: SnapshotItem[] = [];
  const itemIds = new Set<string>();
  const edgesFrom = new Map<string, GraphEdge[]>();
  const allEdges = await graph.getEdges({});
  for (const edge of allEdges) {
    const list = edgesFrom.get(edge.from);
    if (list) list.push(edge);
    else edgesFrom.set(edge.from, [edge]);
  }
  for (const type of types) {
    for await (const page of nodePages(graph, { label: type.nodeLabel }, PAGE)) {
      for (const node of page) {
        const relationships =
          type.relationships.length > 0 ? relationshipsOf(type, edgesFrom.get(node.id) ?? []) : undefined;
        const record = toContentRecord(node, relationships) as SnapshotItem;
        itemIds.add(node.id);
        const translations = itemTranslations.get(node.id);
        items.push({
          ...record,
          ...(translations ? { translations } : {}),
          version: record.version ?? 1,
          hash: record.hash ?? '',
          status: record.status ?? 'draft',
          publishedEnvs: record.publishedEnvs ?? [],
        });
      }
    }
  }
  if (live && env)
    await applyLive({ graph, items, itemIds, env, live, knownTypes: new Set(types.map((t) => t.name)) });
  const vectors = await graph.getEmbeddings([...itemIds]);
  for (const item of items) {
    const vector = vectors.get(item.id);
    if (vector) item.embedding = vector;
  }
  const sets = [...(await embeddingSets(graph)).values()].sort((a, b) => (a.type < b.type ? -1 : 1));
  const edges = allEdges
    .filter((edge) => itemIds.has(edge.from) && itemIds.has(edge.to))
    .map((edge) => ({
      from: edge.from,
      edge: edge.type,
      to: edge.to,
      ...(Object.keys(edge.props).length > 0 ? { props: edge.props } : {}),
    }));
  const assets: Array<{ id: string; url: string }> = [];
  for await (const page of nodePages(graph, { label: MEDIA_LABEL }, PAGE)) {
    for (const node of page) {
      const asset = toMediaAsset(node);
      assets.push({ id: asset.id, url: asset.url });
    }
  }
  assets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    site: {
      id: site.id,
      name: site.name,
      slug: site.slug,
      graphName: site.graphName,
      publicUrl: site.publicUrl,
      description: site.description,
      mantra: site.mantra,
      theme: site.theme,
      searchEmission: site.searchEmission,
      ...(site.collections ? { collections: site.collections } : {}),
      createdAt: site.createdAt,
    },
    types: types as SiteSnapshot['types'],
    items,
    edges,
    templates: await listTemplates(graph),
    transforms: (await listSiteResources(graph, TRANSFORMS)) as Transform[],
    // what script transforms and scripts bound to build events run
    scripts: (await listSiteResources(
      graph,
      OTHER_RESOURCES.find((spec) => spec.base === 'scripts')!,
    )) as Script[],
    routes: (await listSiteResources(graph, ROUTES)) as Route[],
    views: (await listSiteResources(graph, VIEWS)) as View[],
    queries: (await listSiteResources(graph, QUERIES)) as SavedQuery[],
    ...(locales.length > 0 ? { locales, translations: await listLocaleStrings(graph) } : {}),
    blockTypes: (await listSiteResources(graph, resourceSpec('block-types'))) as BlockType[],
    widgets: (await listSiteResources(graph, resourceSpec('widgets'))) as Widget[],
    pageKits: (await listSiteResources(graph, resourceSpec('page-kits'))) as PageKit[],
    ...(sets[0] ? { embeddings: { provider: sets[0].provider, dimensions: sets[0].dimensions } } : {}),
    ...(assets.length > 0 ? { assets } : {}),
    exportedAt: clock.now().toISOString(),
  };
}

/**
 * Turns head items into the items of an environment's live state, in place: live items at
 * their live version (read from their version nodes), the others unpublished; live items with
 * no item node any more (deleted, their versions kept) are added from their version.
 */
async function applyLive({
  graph,
  items,
  itemIds,
  env,
  live,
  knownTypes,
}: {
  graph: GraphReader;
  items: SnapshotItem[];
  itemIds: Set<string>;
  env: string;
  live: ReadonlyMap<string, LiveEntry>;
  knownTypes: ReadonlySet<string>;
}): Promise<void> {
  const wanted: string[] = [];
  for (const item of items) {
    const entry = live.get(item.id);
    if (entry && entry.version !== item.version) wanted.push(versionNodeId(item.id, entry.version));
  }
  for (const [id, entry] of live) {
    if (!itemIds.has(id) && knownTypes.has(entry.type ?? typeOfId(id)))
      wanted.push(versionNodeId(id, entry.version));
  }
  const versions = new Map<string, GraphNode>();
  for (let i = 0; i < wanted.length; i += PAGE) {
    for (const node of await graph.getNodes(wanted.slice(i, i + PAGE))) {
      if (node.labels.includes(VERSION_LABEL)) versions.set(node.id, node);
    }
  }
  const atVersion = (base: SnapshotItem, entry: LiveEntry): SnapshotItem | null => {
    if (entry.version === base.version) return { ...base, status: 'published', publishedEnvs: [env] };
    const node = versions.get(versionNodeId(base.id, entry.version));
    if (!node) return null;
    const props = node.props;
    return {
      ...base,
      fields: (props.fields as Record<string, unknown>) ?? {},
      body: (props.body as SnapshotItem['body']) ?? base.body,
      version: entry.version,
      hash: String(props.hash ?? entry.hash),
      status: 'published',
      publishedEnvs: [env],
      updatedAt: typeof props.at === 'string' ? props.at : base.updatedAt,
    };
  };
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as SnapshotItem;
    const entry = live.get(item.id);
    const taken = entry ? atVersion(item, entry) : null;
    // `publishedAt` is bookkeeping of the item node (the last time it went live anywhere): an
    // environment's snapshot leaves it out, so that building ahead and building at the time
    // of a deployment see the same snapshot.
    const { publishedAt: _publishedAt, ...rest } = (taken ?? {
      ...item,
      status: item.status === 'published' ? 'draft' : item.status,
      publishedEnvs: [],
    }) as SnapshotItem & { publishedAt?: unknown };
    items[i] = rest;
  }
  for (const [id, entry] of live) {
    if (itemIds.has(id)) continue;
    const node = versions.get(versionNodeId(id, entry.version));
    if (!node) continue;
    const props = node.props;
    items.push({
      id,
      type: entry.type ?? typeOfId(id),
      fields: (props.fields as Record<string, unknown>) ?? {},
      body: props.body as SnapshotItem['body'],
      version: entry.version,
      hash: String(props.hash ?? entry.hash),
      status: 'published',
      publishedEnvs: [env],
      createdAt: typeof props.at === 'string' ? props.at : undefined,
      updatedAt: typeof props.at === 'string' ? props.at : undefined,
    } as SnapshotItem);
    itemIds.add(id);
  }
}
