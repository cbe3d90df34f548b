import type { UserMatch } from '@trelliscms/core';
import type { GraphNode, GraphReader } from '../engines/port';
import { getMembership } from './members';
import { USER_LABEL } from './users';

/** Users fetched per matched field; `total` counts at most this many. */
export const MAX_USER_CANDIDATES = 1000;

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * Platform users an admin can grant access to, by `q`: with `substring`, users whose name or
 * e-mail contains `q` (case-insensitive); without, only users whose e-mail is `q`
 * (case-insensitive), so a site admin can look up someone they know, not list the platform.
 * Exact e-mail matches come first, then by name, then e-mail; each with their role on
 * `siteId` (null: none). `total` counts the matches (up to {@link MAX_USER_CANDIDATES}).
 */
export async function findUsers({
  platform,
  q,
  substring,
  siteId,
  limit,
}: {
  platform: GraphReader;
  q: string;
  substring: boolean;
  siteId: string;
  limit: number;
}): Promise<{ items: UserMatch[]; total: number }> {
  const wanted = q.toLowerCase();
  const fields = substring ? ['email', 'name'] : ['email'];
  const found = new Map<string, GraphNode>();
  for (const prop of fields) {
    const page = await platform.findNodes({
      label: USER_LABEL,
      where: [{ prop, op: 'contains', value: q }],
      limit: MAX_USER_CANDIDATES,
    });
    for (const node of page.nodes) found.set(node.id, node);
  }
  const isExact = (node: GraphNode) => text(node.props.email)?.toLowerCase() === wanted;
  const matches = [...found.values()].filter((node) => substring || isExact(node));
  const key = (node: GraphNode) => (text(node.props.name) ?? text(node.props.email) ?? node.id).toLowerCase();
  matches.sort(
    (a, b) =>
      Number(isExact(b)) - Number(isExact(a)) || key(a).localeCompare(key(b)) || a.id.localeCompare(b.id),
  );
  const items: UserMatch[] = [];
  for (const node of matches.slice(0, limit)) {
    const membership = await getMembership(platform, { userId: node.id, siteId });
    items.push({
      userId: node.id,
      name: text(node.props.name),
      email: text(node.props.email),
      role: membership?.role ?? null,
    });
  }
  return { items, total: Math.min(matches.length, MAX_USER_CANDIDATES) };
}
