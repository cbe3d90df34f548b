import { TrellisError } from '@trelliscms/core';
import type { Graph } from '../engines/port';

/**
 * The graph a `graph=` query names, if the caller may read its audit chain: the current
 * site's graph, or the platform graph for the platform owner. Anything else is 404
 * `graph_not_found`, so another site's graph name tells nothing.
 */
export function auditGraphFor({
  request,
  name,
  platform,
  platformGraphName,
}: {
  request: {
    site: { graphName: string; graph: Graph } | null;
    principal: { platformRole: string | null } | null;
  };
  name: string;
  platform: Graph;
  platformGraphName: string;
}): Graph {
  const site = request.site;
  if (site && name === site.graphName) return site.graph;
  if (name === platformGraphName && request.principal?.platformRole === 'owner') return platform;
  throw TrellisError.of('graph_not_found', { graph: name });
}
