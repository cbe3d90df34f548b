import { SearchEmission, type Site, SiteCollections, type SiteTheme } from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader } from '../engines/port';
import { nodePages } from '../shared/node-pages';

/** Label of sites in the platform graph. */
export const SITE_LABEL = 'Site';

/** How long a deleted site's graph is kept before it may be purged. */
export const SITE_RETENTION_DAYS = 30;

/**
 * A site as the API shows it (docs/api-spec.md §2 Site), every optional field filled but
 * `collections`, present only when the site has some.
 */
export type SiteView = Required<Omit<Site, 'collections'>> & Pick<Site, 'collections'>;

/** A site as stored in the platform graph: the view plus who made it and its deletion state. */
export interface SiteRecord extends SiteView {
  createdBy: string;
  /** Set by the owner's soft delete; the site is then hidden and answers 404. */
  deletedAt: string | null;
  /** When the retention period of a deleted site ends. */
  purgeAfter: string | null;
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

/** A site's stored collections, as a partial record: absent when there are none. */
export function collectionsOf(value: unknown): Pick<Site, 'collections'> {
  const parsed = SiteCollections.safeParse(value);
  return parsed.success && Object.keys(parsed.data).length > 0 ? { collections: parsed.data } : {};
}

/** Reads a site node. */
export function toSiteRecord(node: GraphNode): SiteRecord {
  const p = node.props;
  const emission = p.searchEmission;
  return {
    id: node.id,
    name: str(p.name),
    slug: str(p.slug),
    graphName: str(p.graphName),
    publicUrl: typeof p.publicUrl === 'string' ? p.publicUrl : null,
    description: str(p.description),
    mantra: str(p.mantra),
    theme: typeof p.theme === 'object' && p.theme !== null ? (p.theme as SiteTheme) : {},
    searchEmission: SearchEmission.safeParse(emission).data ?? 'bm25',
    ...collectionsOf(p.collections),
    createdAt: str(p.createdAt),
    createdBy: str(p.createdBy),
    deletedAt: typeof p.deletedAt === 'string' ? p.deletedAt : null,
    purgeAfter: typeof p.purgeAfter === 'string' ? p.purgeAfter : null,
  };
}

/** The API shape of a site record (without its internal fields). */
export function toSiteView(record: SiteRecord): SiteView {
  const { createdBy: _createdBy, deletedAt: _deletedAt, purgeAfter: _purgeAfter, ...view } = record;
  return view;
}

/** The stored props of a site record. */
export function siteProps(record: SiteRecord): Record<string, unknown> {
  const { id: _id, ...props } = record;
  return props;
}

/** The live (not deleted) site with this id, or null. */
export async function getSite(graph: GraphReader, id: string): Promise<SiteRecord | null> {
  const node = await graph.getNode(id);
  if (!node?.labels.includes(SITE_LABEL)) return null;
  const record = toSiteRecord(node);
  return record.deletedAt ? null : record;
}

/** Every live site, by id. */
export async function listSites(graph: Graph): Promise<SiteRecord[]> {
  const sites: SiteRecord[] = [];
  for await (const page of nodePages(graph, { label: SITE_LABEL }, 500)) {
    for (const node of page) {
      const record = toSiteRecord(node);
      if (!record.deletedAt) sites.push(record);
    }
  }
  return sites;
}

/** A slug from a site name: lowercase ASCII letters, digits and dashes. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug || 'site';
}
