import type { GraphReader } from '../engines/port';
import { getMembership } from '../platform/members';
import { lowerRole } from './permissions';
import type { Principal, Role } from './types';

/**
 * The caller's effective role on a site, or null for no access: the platform role for the
 * platform owner and admins, else the membership role; an API key acts with the lower of
 * its own role and its user's, and only on its allowed sites.
 */
export async function siteRoleFor({
  platform,
  principal,
  siteId,
}: {
  platform: GraphReader;
  principal: Principal;
  siteId: string;
}): Promise<Role | null> {
  if (principal.allowedSites && !principal.allowedSites.includes(siteId)) return null;
  const role: Role | null =
    principal.platformRole ??
    (await getMembership(platform, { userId: principal.userId, siteId }))?.role ??
    null;
  if (role === null) return null;
  return principal.keyRole ? lowerRole(role, principal.keyRole) : role;
}
