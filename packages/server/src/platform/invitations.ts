import { randomBytes } from 'node:crypto';
import type { Invitation, InvitationCreated, MemberRole } from '@trelliscms/core';
import { hashMatches, hashToken } from '../auth/api-key-secret';
import type { Graph, GraphNode, GraphReader, GraphWriter } from '../engines/port';
import type { Clock } from '../shared/clock';

/** Label of invitations in the platform graph. */
export const INVITATION_LABEL = 'Invitation';

/** How long an invitation stays open when its creator names no expiry. */
export const DEFAULT_INVITATION_DAYS = 7;

/** Invitation tokens look like `ti_<lookupId>_<secret>`: a 12-hex lookup id, then 256 random bits. */
const TOKEN_PATTERN = /^ti_([a-f0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** An invitation as stored: only the sha256 of its token. */
export interface InvitationRecord extends Invitation {
  hash: string;
  acceptedAt: string | null;
  acceptedBy: string | null;
  revokedAt: string | null;
}

function toRecord(node: GraphNode): InvitationRecord {
  const p = node.props;
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return {
    id: node.id,
    siteId: String(p.siteId),
    email: String(p.email),
    name: text(p.name),
    role: p.role as MemberRole,
    invitedBy: String(p.invitedBy),
    createdAt: String(p.createdAt),
    expiresAt: String(p.expiresAt),
    hash: String(p.hash),
    acceptedAt: text(p.acceptedAt),
    acceptedBy: text(p.acceptedBy),
    revokedAt: text(p.revokedAt),
  };
}

/** The listed shape: no token hash, no bookkeeping. */
export function toInvitationView(record: InvitationRecord): Invitation {
  const { id, siteId, email, name, role, invitedBy, createdAt, expiresAt } = record;
  return { id, siteId, email, name, role, invitedBy, createdAt, expiresAt };
}

/** Whether the invitation can still be accepted at `now`. */
export function isOpen(record: InvitationRecord, now: Date): boolean {
  return (
    record.acceptedAt === null && record.revokedAt === null && Date.parse(record.expiresAt) > now.getTime()
  );
}

/**
 * Stores a new invitation with a fresh one-time token and audits it (`invitation.create`).
 * Returns the invitation with its token, which is never stored or shown again.
 */
export async function createInvitation(
  tx: GraphWriter,
  input: {
    siteId: string;
    email: string;
    name: string | null;
    role: MemberRole;
    invitedBy: string;
    expiresAt: string;
    actor: string;
    clock: Clock;
  },
): Promise<InvitationCreated> {
  const lookupId = randomBytes(6).toString('hex');
  const token = `ti_${lookupId}_${randomBytes(32).toString('base64url')}`;
  const node = await tx.createNode({
    id: `invite:${lookupId}`,
    labels: [INVITATION_LABEL],
    props: {
      siteId: input.siteId,
      email: input.email,
      name: input.name,
      role: input.role,
      invitedBy: input.invitedBy,
      createdAt: input.clock.now().toISOString(),
      expiresAt: input.expiresAt,
      hash: hashToken(token),
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
    },
  });
  await tx.appendAudit({
    actor: input.actor,
    action: 'invitation.create',
    target: node.id,
    data: { siteId: input.siteId, email: input.email, role: input.role },
  });
  return { ...toInvitationView(toRecord(node)), token };
}

/** The site's invitations that can still be accepted, oldest first. */
export async function listOpenInvitations(
  graph: Graph,
  siteId: string,
  now: Date,
): Promise<InvitationRecord[]> {
  const page = await graph.findNodes({
    label: INVITATION_LABEL,
    where: [{ prop: 'siteId', op: 'eq', value: siteId }],
    orderBy: [{ prop: 'createdAt' }],
    limit: 10_000,
  });
  return page.nodes.map(toRecord).filter((record) => isOpen(record, now));
}

/** The invitation with this id on this site, or null. */
export async function getInvitation(
  graph: GraphReader,
  { id, siteId }: { id: string; siteId: string },
): Promise<InvitationRecord | null> {
  const node = await graph.getNode(id);
  if (!node?.labels.includes(INVITATION_LABEL)) return null;
  const record = toRecord(node);
  return record.siteId === siteId ? record : null;
}

/** The invitation a token opens (accepted, revoked or expired ones too), or null; compared in constant time. */
export async function invitationForToken(
  graph: GraphReader,
  token: string,
): Promise<InvitationRecord | null> {
  const lookupId = TOKEN_PATTERN.exec(token)?.[1];
  if (!lookupId) return null;
  const node = await graph.getNode(`invite:${lookupId}`);
  if (!node?.labels.includes(INVITATION_LABEL)) return null;
  const record = toRecord(node);
  return hashMatches(hashToken(token), record.hash) ? record : null;
}

/** Marks the invitation revoked and audits it. */
export async function revokeInvitation(
  tx: GraphWriter,
  input: { record: InvitationRecord; actor: string; clock: Clock },
): Promise<void> {
  const node = await tx.getNode(input.record.id);
  if (!node) return;
  await tx.updateNode(node.id, { props: { ...node.props, revokedAt: input.clock.now().toISOString() } });
  await tx.appendAudit({
    actor: input.actor,
    action: 'invitation.revoke',
    target: node.id,
    data: { siteId: input.record.siteId },
  });
}

/** Marks the invitation accepted by `userId` (it cannot be used again) and audits it. */
export async function markAccepted(
  tx: GraphWriter,
  input: { record: InvitationRecord; userId: string; role: MemberRole; clock: Clock },
): Promise<void> {
  const node = await tx.getNode(input.record.id);
  if (!node) return;
  await tx.updateNode(node.id, {
    props: { ...node.props, acceptedAt: input.clock.now().toISOString(), acceptedBy: input.userId },
  });
  await tx.appendAudit({
    actor: input.userId,
    action: 'invitation.accept',
    target: node.id,
    data: { siteId: input.record.siteId, role: input.role, invitedBy: input.record.invitedBy },
  });
}
