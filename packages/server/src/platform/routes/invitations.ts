import {
  AcceptInvitationBody,
  CreateInvitationBody,
  InvitationAccepted,
  InvitationCreated,
  InvitationList,
  InvitationParams,
  MAX_INVITATION_DAYS,
  NoContent,
  PageQuery,
  TrellisError,
  UserMatchList,
  UserSearchQuery,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { canAssignRole } from '../../auth/permissions';
import { errorResponses } from '../../http/error-responses';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { acceptInvitation } from '../accept-invitation';
import { findUsers } from '../find-users';
import {
  createInvitation,
  DEFAULT_INVITATION_DAYS,
  getInvitation,
  isOpen,
  listOpenInvitations,
  revokeInvitation,
  toInvitationView,
} from '../invitations';

const errors = errorResponses(400, 401, 403, 404, 409);
const DAY_MS = 86_400_000;

/**
 * People: find a platform user to grant access to, invite someone by e-mail (a one-time token
 * they redeem), list and revoke open invitations — all admin-only on the current site — and
 * redeem an invitation (`/api/auth/invitations/accept`, no site, credential optional).
 */
export const invitationsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform } = app.trellis;

  app.get(
    '/api/access/users',
    {
      schema: {
        tags: ['access'],
        summary: 'Find platform users to grant access to (admin only)',
        description:
          'Platform owners and admins match `q` against any part of a name or e-mail; site admins only an ' +
          'exact e-mail address, so the user list is never listed to them. At most `limit` (≤ 20) matches, ' +
          'exact e-mail first, each with their role on the current site (null: none).',
        querystring: UserSearchQuery,
        response: { 200: UserMatchList, ...errors },
      },
      config: { siteScope: 'site', permission: 'members:manage' },
    },
    async (request) =>
      findUsers({
        platform,
        q: request.query.q,
        substring: request.principal!.platformRole !== null,
        siteId: siteOf(request).id,
        limit: request.query.limit,
      }),
  );

  app.get(
    '/api/access/invitations',
    {
      schema: {
        tags: ['access'],
        summary: 'Open invitations to the current site (admin only; never their tokens)',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: InvitationList, ...errors },
      },
      config: { siteScope: 'site', permission: 'members:manage' },
    },
    async (request, reply) => {
      const open = await listOpenInvitations(platform, siteOf(request).id, app.trellis.clock.now());
      const page = pageOf(open.map(toInvitationView), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.post(
    '/api/access/invitations',
    {
      schema: {
        tags: ['access'],
        summary:
          'Invite someone by e-mail with a role; the answer carries the one-time token, shown this once',
        body: CreateInvitationBody,
        response: { 201: InvitationCreated, ...errors },
      },
      config: { siteScope: 'site', permission: 'members:manage' },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const { email, role, name } = request.body;
      if (!canAssignRole({ granter: site.role, role, current: null })) {
        throw TrellisError.of(
          'forbidden',
          { resource: 'operation' },
          { hint: `Your role on ${site.id} is ${site.role}; you cannot invite a ${role}.` },
        );
      }
      const now = app.trellis.clock.now().getTime();
      const expiresAt = request.body.expiresAt
        ? new Date(request.body.expiresAt).toISOString()
        : new Date(now + DEFAULT_INVITATION_DAYS * DAY_MS).toISOString();
      const expiresMs = Date.parse(expiresAt);
      if (expiresMs <= now || expiresMs > now + MAX_INVITATION_DAYS * DAY_MS) {
        throw TrellisError.of('validation_failed', {
          detail: `body.expiresAt: must be in the future and at most ${MAX_INVITATION_DAYS} days away`,
        });
      }
      const principal = request.principal!;
      const created = await platform.transaction((tx) =>
        createInvitation(tx, {
          siteId: site.id,
          email: email.toLowerCase(),
          name: name ?? null,
          role,
          invitedBy: principal.userId,
          expiresAt,
          actor: actorOf(principal),
          clock: app.trellis.clock,
        }),
      );
      request.log.info({ invitationId: created.id, role }, 'invitation created');
      return reply.status(201).send(created);
    },
  );

  app.delete(
    '/api/access/invitations/:id',
    {
      schema: {
        tags: ['access'],
        summary: 'Revoke an open invitation (admin only); its token stops working',
        params: InvitationParams,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: 'members:manage' },
    },
    async (request, reply) => {
      const site = siteOf(request);
      await platform.transaction(async (tx) => {
        const record = await getInvitation(tx, { id: request.params.id, siteId: site.id });
        if (!record || !isOpen(record, app.trellis.clock.now())) {
          throw TrellisError.of('not_found', { resource: 'Invitation' });
        }
        await revokeInvitation(tx, { record, actor: actorOf(request.principal!), clock: app.trellis.clock });
      });
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/auth/invitations/accept',
    {
      schema: {
        tags: ['access'],
        summary:
          'Redeem an invitation token (once): signed in, for yourself; without a credential, as a new user',
        description:
          'With a credential, the caller gets the invited role on the site. Without one, a user is created from ' +
          'the invitation (409 when a user with that e-mail exists: accept signed in). A role already held that ' +
          'is at least as high is kept. An API key for the site (secret shown once) comes with the answer when ' +
          'the caller has no credential that works on the site. 404 when the token is unknown, expired, revoked ' +
          'or used, or its sender can no longer grant the role.',
        body: AcceptInvitationBody,
        response: { 200: InvitationAccepted, ...errors },
      },
      config: { siteScope: 'none', credential: 'optional' },
    },
    async (request) => {
      const accepted = await acceptInvitation({
        platform,
        token: request.body.token,
        principal: request.principal,
        clock: app.trellis.clock,
      });
      request.log.info(
        { siteId: accepted.member.siteId, userId: accepted.member.userId, role: accepted.member.role },
        'invitation accepted',
      );
      return { ok: true as const, ...accepted };
    },
  );
};
