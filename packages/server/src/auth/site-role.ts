import type { Graph } from '../engines/port';
import { getMembership } from '../platform/members';
import { lowerRole } from './permissions';
import type { PlatformAccessCache } from './platform-access-cache';
import type { Principal, Role } from './types';

/**
 * The caller's effective role on a site, or null for no access: the platform role for the
 * platform owner and admins, else the membership role; an API key acts with the lower of
 * its own role and its user's, and only on its allowed sites. With `access`, the membership
 * is read through that cache (the request path); without it, from the graph.
 */
export async function siteRoleFor({
  platform,
  principal,
  siteId,
  access,
}: {
  platform: Graph;
  principal: Principal;
  siteId: string;
  access?: PlatformAccessCache;
}): Promise<Role | null> {
  if (principal.allowedSites && !principal.allowedSites.includes(siteId)) return null;
  const query = { userId: principal.userId, siteId };
  const role: Role | null =
    principal.platformRole ??
    (access ? await access.membership(platform, query) : await getMembership(platform, query))?.role ??
    null;
  if (role === null) return null;
  return principal.keyRole ? lowerRole(role, principal.keyRole) : role;
}
