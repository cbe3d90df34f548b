import { type Member, Role } from '@trelliscms/core';
import { bumpAccessEpoch } from '../auth/access-epoch';
import type { GraphReader, GraphWriter } from '../engines/port';
import type { Clock } from '../shared/clock';
import { getUser } from './users';

/** Edge from a user to a site: the user's role there (`{role, grantedAt, grantedBy}`). */
export const MEMBER_EDGE = 'MEMBER_OF';

/** A user's membership of a site. */
export interface Membership {
  userId: string;
  siteId: string;
  role: Role;
  grantedAt: string | null;
  grantedBy: string | null;
}

function toMembership(edge: { from: string; to: string; props: Record<string, unknown> }): Membership | null {
  const role = edge.props.role;
  const parsed = Role.safeParse(role);
  if (!parsed.success) return null;
  return {
    userId: edge.from,
    siteId: edge.to,
    role: parsed.data,
    grantedAt: typeof edge.props.grantedAt === 'string' ? edge.props.grantedAt : null,
    grantedBy: typeof edge.props.grantedBy === 'string' ? edge.props.grantedBy : null,
  };
}

/** The user's role on the site, or null when they are not a member. */
export async function getMembership(
  graph: GraphReader,
  { userId, siteId }: { userId: string; siteId: string },
): Promise<Membership | null> {
  const [edge] = await graph.getEdges({ from: userId, to: siteId, type: MEMBER_EDGE });
  return edge ? toMembership(edge) : null;
}

/** The sites the user is a member of. */
export async function listMemberships(graph: GraphReader, userId: string): Promise<Membership[]> {
  const edges = await graph.getEdges({ from: userId, type: MEMBER_EDGE });
  return edges.map(toMembership).filter((m): m is Membership => m !== null);
}

/** The members of a site with their names, by user id. */
export async function listMembers(graph: GraphReader, siteId: string): Promise<Member[]> {
  const memberships = (await graph.getEdges({ to: siteId, type: MEMBER_EDGE }))
    .map(toMembership)
    .filter((m): m is Membership => m !== null);
  const users = new Map((await graph.getNodes(memberships.map((m) => m.userId))).map((n) => [n.id, n]));
  return memberships
    .map((m) => {
      const props = users.get(m.userId)?.props ?? {};
      return toMemberView(m, {
        name: typeof props.name === 'string' ? props.name : null,
        email: typeof props.email === 'string' ? props.email : null,
      });
    })
    .sort((a, b) => a.userId.localeCompare(b.userId));
}

/** A membership with the user's name and e-mail, in the API shape. */
export function toMemberView(m: Membership, user: { name: string | null; email: string | null }): Member {
  const view: Member = {
    userId: m.userId,
    email: user.email,
    name: user.name,
    role: m.role,
    siteId: m.siteId,
    grantedBy: m.grantedBy,
  };
  if (m.grantedAt) view.grantedAt = m.grantedAt;
  return view;
}

/** Sets the user's role on the site (creating the membership) and audits it. */
export async function setMembership(
  tx: GraphWriter,
  input: { userId: string; siteId: string; role: Role; actor: string; action?: string; clock: Clock },
): Promise<Member> {
  const grantedAt = input.clock.now().toISOString();
  const user = await getUser(tx, input.userId);
  await tx.mergeEdge({
    from: input.userId,
    type: MEMBER_EDGE,
    to: input.siteId,
    props: { role: input.role, grantedAt, grantedBy: input.actor },
  });
  await bumpAccessEpoch(tx);
  await tx.appendAudit({
    actor: input.actor,
    action: input.action ?? 'member.set_role',
    target: input.userId,
    data: { siteId: input.siteId, role: input.role },
  });
  return toMemberView(
    { userId: input.userId, siteId: input.siteId, role: input.role, grantedAt, grantedBy: input.actor },
    { name: user?.name ?? null, email: user?.email ?? null },
  );
}

/** Removes the user's membership of the site and audits it. False when there was none. */
export async function removeMembership(
  tx: GraphWriter,
  input: { userId: string; siteId: string; actor: string },
): Promise<boolean> {
  const removed = await tx.deleteEdge({ from: input.userId, type: MEMBER_EDGE, to: input.siteId });
  if (removed) {
    await tx.appendAudit({
      actor: input.actor,
      action: 'member.revoke',
      target: input.userId,
      data: { siteId: input.siteId },
    });
    await bumpAccessEpoch(tx);
  }
  return removed;
}
