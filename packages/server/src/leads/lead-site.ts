import type { Graph, GraphEngine } from '../engines/port';
import { getSite, listSites, type SiteRecord } from '../platform/sites';
import { listEnvironments } from '../releases/environments';

/** The origin (`https://acme.example`) of a URL, or null when it is not an http(s) URL. */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** A site a lead is for, with the graph it is stored in and the origins its pages are served from. */
export interface LeadSite {
  record: SiteRecord;
  graph: Graph;
  /** the origins of the site's `publicUrl` and of its environments' `publicUrlOverride` */
  origins: Set<string>;
}

async function withOrigins(engine: GraphEngine, record: SiteRecord): Promise<LeadSite | null> {
  const graph = await engine.openGraph(record.graphName);
  if (!graph) return null;
  const origins = new Set<string>();
  const own = originOf(record.publicUrl);
  if (own) origins.add(own);
  for (const environment of await listEnvironments(graph)) {
    const origin = originOf(environment.publicUrlOverride ?? null);
    if (origin) origins.add(origin);
  }
  return { record, graph, origins };
}

/**
 * The site a lead names by slug (the form field `site`), else the first live site one of whose
 * origins is `origin`; null when there is none.
 */
export async function findLeadSite(params: {
  engine: GraphEngine;
  platform: Graph;
  slug: string | undefined;
  origin: string | null;
}): Promise<LeadSite | null> {
  const { engine, platform, slug, origin } = params;
  if (slug) {
    const direct = await getSite(platform, `site:${slug}`);
    const record =
      direct && direct.slug === slug
        ? direct
        : (await listSites(platform)).find((site) => site.slug === slug);
    return record ? withOrigins(engine, record) : null;
  }
  if (!origin) return null;
  for (const record of await listSites(platform)) {
    const site = await withOrigins(engine, record);
    if (site?.origins.has(origin)) return site;
  }
  return null;
}
