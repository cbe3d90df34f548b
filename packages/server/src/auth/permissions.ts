import type { Permission, Role } from './types';

/**
 * The one permission table (docs/permissions.md shows it). Roles are nested: each role holds
 * every permission of the roles below it, so "nobody grants a role above their own" and
 * "a key never exceeds its creator" are comparisons of rank.
 */
export const PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = (() => {
  const viewer: Permission[] = ['site:read', 'content:read'];
  const publisher: Permission[] = [
    ...viewer,
    'content:publish',
    'build:run',
    'release:manage',
    'release:deploy',
  ];
  const editor: Permission[] = [...publisher, 'content:write', 'types:manage', 'templates:manage'];
  const admin: Permission[] = [
    ...editor,
    'site:update',
    'members:manage',
    'keys:manage',
    'maintenance:run',
    'audit:read',
  ];
  const owner: Permission[] = [...admin, 'site:delete'];
  return { owner, admin, editor, publisher, viewer };
})();

const RANK: Readonly<Record<Role, number>> = { owner: 5, admin: 4, editor: 3, publisher: 2, viewer: 1 };

/** Whether `role` holds `permission` in {@link PERMISSIONS}. */
export function roleHasPermission(role: Role, permission: Permission): boolean {
  return PERMISSIONS[role].includes(permission);
}

/** Whether `role` ranks at least as high as `other`. */
export function roleAtLeast(role: Role, other: Role): boolean {
  return RANK[role] >= RANK[other];
}

/** The lower of two roles (an API key acts with the lower of its own role and its creator's). */
export function lowerRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * Whether someone holding `granter` may give `role` to a user whose current role is
 * `current` (null when they have none): never above their own, never over someone above them.
 */
export function canAssignRole({
  granter,
  role,
  current,
}: {
  granter: Role;
  role: Role;
  current: Role | null;
}): boolean {
  if (!roleHasPermission(granter, 'members:manage')) return false;
  if (!roleAtLeast(granter, role)) return false;
  return current === null || roleAtLeast(granter, current);
}
