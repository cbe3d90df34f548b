import type { Principal } from '../auth/types';
import type { Graph } from '../engines/port';
import { listMemberships } from './members';
import { listSites, SITE_LABEL, type SiteRecord, toSiteRecord } from './sites';

/** The live sites a principal can access (all for the platform owner and admins). */
export async function accessibleSites(platform: Graph, principal: Principal): Promise<SiteRecord[]> {
  let sites: SiteRecord[];
  if (principal.platformRole) {
    sites = await listSites(platform);
  } else {
    const memberships = await listMemberships(platform, principal.userId);
    const nodes = await platform.getNodes(memberships.map((m) => m.siteId));
    sites = nodes
      .filter((node) => node.labels.includes(SITE_LABEL))
      .map(toSiteRecord)
      .filter((site) => !site.deletedAt);
  }
  const allowed = principal.allowedSites;
  return (allowed ? sites.filter((site) => allowed.includes(site.id)) : sites).sort((a, b) =>
    a.id.localeCompare(b.id),
  );
}
