import {
  type Route,
  type SiteSnapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type SnapshotItem,
  type Transform,
  type View,
} from '@trelliscms/core';
import { relationshipsOf, toContentRecord } from '../content/item-record';
import { listTypes } from '../content/type-repository';
import type { GraphEdge, GraphReader } from '../engines/port';
import type { SiteView } from '../platform/sites';
import type { Clock } from '../shared/clock';
import { nodePages } from '../shared/node-pages';
import { ROUTES, TRANSFORMS, VIEWS } from '../site-resources/resource-specs';
import { listSiteResources } from '../site-resources/site-resources';
import { listTemplates } from '../site-resources/template-repository';

const PAGE = 5000;

/**
 * Reads everything a build needs from a site graph into one snapshot (the documented
 * `trellis-snapshot` format of core `schemas/snapshot.ts`, also the body of GET /api/export):
 * the site settings, content types, every item with its version, hash, status and
 * published environments, the relationship edges between items, templates at their head
 * version, transforms, routes and views.
 */
export async function takeSnapshot({
  graph,
  site,
  clock,
}: {
  graph: GraphReader;
  site: SiteView;
  clock: Clock;
}): Promise<SiteSnapshot> {
  const types = await listTypes(graph);
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
        items.push({
          ...record,
          version: record.version ?? 1,
          hash: record.hash ?? '',
          status: record.status ?? 'draft',
          publishedEnvs: record.publishedEnvs ?? [],
        });
      }
    }
  }
  const edges = allEdges
    .filter((edge) => itemIds.has(edge.from) && itemIds.has(edge.to))
    .map((edge) => ({
      from: edge.from,
      edge: edge.type,
      to: edge.to,
      ...(Object.keys(edge.props).length > 0 ? { props: edge.props } : {}),
    }));
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
      createdAt: site.createdAt,
    },
    types: types as SiteSnapshot['types'],
    items,
    edges,
    templates: await listTemplates(graph),
    transforms: (await listSiteResources(graph, TRANSFORMS)) as Transform[],
    routes: (await listSiteResources(graph, ROUTES)) as Route[],
    views: (await listSiteResources(graph, VIEWS)) as View[],
    exportedAt: clock.now().toISOString(),
  };
}
