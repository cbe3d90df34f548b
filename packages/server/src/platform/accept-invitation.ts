import { type ApiKeyCreated, type Member, type MemberRole, type Role, TrellisError } from '@trelliscms/core';
import { canAssignRole, roleAtLeast } from '../auth/permissions';
import type { Principal } from '../auth/types';
import type { Graph, GraphWriter } from '../engines/port';
import type { Clock } from '../shared/clock';
import { createApiKey, toApiKeyView } from './api-keys';
import { invitationForToken, isOpen, markAccepted } from './invitations';
import { getMembership, setMembership } from './members';
import { getSite } from './sites';
import { createUser, getUser, USER_LABEL } from './users';

const notValid = () =>
  TrellisError.of(
    'not_found',
    { resource: 'Invitation' },
    {
      hint: 'The invitation is unknown, expired, revoked or already used, or its sender can no longer grant it; ask a site admin for a new one.',
    },
  );

/** The role the inviter holds on the site now (their platform role, else their membership), or null. */
async function inviterRole(tx: GraphWriter, userId: string, siteId: string): Promise<Role | null> {
  const user = await getUser(tx, userId);
  if (!user) return null;
  return user.platformRole ?? (await getMembership(tx, { userId, siteId }))?.role ?? null;
}

/** Whether any platform user has this e-mail address (case-insensitive). */
async function emailTaken(tx: GraphWriter, email: string): Promise<boolean> {
  const page = await tx.findNodes({
    label: USER_LABEL,
    where: [{ prop: 'email', op: 'contains', value: email }],
    limit: 1000,
  });
  const wanted = email.toLowerCase();
  return page.nodes.some((node) => String(node.props.email ?? '').toLowerCase() === wanted);
}

/**
 * Redeems an invitation token, once, in one platform transaction:
 * - signed in (`principal`): the caller's user gets the invited role on the site;
 * - without a credential: a user is created from the invitation's e-mail and name (409 when
 *   a user with that e-mail exists: they accept signed in);
 * - a role they already hold that is at least as high is kept (never lowered).
 * An API key for the site (the membership's role, restricted to the site; secret shown once)
 * comes with it when the caller has no credential that works there: none, or an API key
 * restricted to other sites. ID tokens and unrestricted keys need none.
 * The invitation holds only while it is open and its sender may still grant the role;
 * otherwise 404. The membership names the sender as `grantedBy`.
 */
export async function acceptInvitation({
  platform,
  token,
  principal,
  clock,
}: {
  platform: Graph;
  token: string;
  principal: Principal | null;
  clock: Clock;
}): Promise<{ member: Member; apiKey?: ApiKeyCreated }> {
  return platform.transaction(async (tx) => {
    const invitation = await invitationForToken(tx, token);
    if (!invitation || !isOpen(invitation, clock.now())) throw notValid();
    const site = await getSite(tx, invitation.siteId);
    if (!site) throw notValid();
    const granter = await inviterRole(tx, invitation.invitedBy, site.id);
    if (!granter || !canAssignRole({ granter, role: invitation.role, current: null })) throw notValid();

    let userId: string;
    if (principal) {
      userId = principal.userId;
    } else {
      if (await emailTaken(tx, invitation.email)) {
        throw TrellisError.of(
          'conflict',
          { detail: `A user with the e-mail ${invitation.email} exists already.` },
          { hint: 'Accept the invitation signed in as that user (send your credential with the request).' },
        );
      }
      const user = await createUser(tx, {
        name: invitation.name,
        email: invitation.email,
        sub: null,
        platformRole: null,
        persona: null,
        actor: invitation.id,
        clock,
      });
      userId = user.id;
    }

    const current = await getMembership(tx, { userId, siteId: site.id });
    const role: MemberRole =
      current && current.role !== 'owner' && roleAtLeast(current.role, invitation.role)
        ? current.role
        : invitation.role;
    const member = await setMembership(tx, {
      userId,
      siteId: site.id,
      role,
      actor: invitation.invitedBy,
      action: 'member.grant',
      clock,
    });
    await markAccepted(tx, { record: invitation, userId, role, clock });

    const worksOnSite = principal !== null && (principal.allowedSites?.includes(site.id) ?? true);
    if (worksOnSite) return { member };
    const { record, token: secret } = await createApiKey(tx, {
      name: `invitation to ${site.id}`,
      role,
      userId,
      siteId: site.id,
      allowedSites: [site.id],
      actor: userId,
      clock,
    });
    return { member, apiKey: { ...toApiKeyView(record), secret } };
  });
}
