import {
  Member,
  MemberList,
  MemberParams,
  PageQuery,
  RevokeMemberResponse,
  TrellisError,
  UpdateMemberRoleBody,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { canAssignRole, roleAtLeast } from '../../auth/permissions';
import { errorResponses } from '../../http/error-responses';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { getMembership, listMembers, removeMembership, setMembership } from '../members';

const errors = errorResponses(400, 401, 403, 404);

/** Spec §4 Site members (site-scoped): list, change role, revoke. */
export const membersRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform } = app.trellis;

  app.get(
    '/api/auth/users',
    {
      schema: {
        tags: ['members'],
        summary: 'Members of the current site',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: MemberList, ...errors },
      },
      config: { siteScope: 'site', permission: 'members:manage' },
    },
    async (request, reply) => {
      const page = pageOf(await listMembers(platform, siteOf(request).id), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.put(
    '/api/auth/users/:id/role',
    {
      schema: {
        tags: ['members'],
        summary: "Change a member's role (never above your own, never over a higher role)",
        params: MemberParams,
        body: UpdateMemberRoleBody,
        response: { 200: Member, ...errors },
      },
      config: { siteScope: 'site', permission: 'members:manage' },
    },
    async (request) => {
      const site = siteOf(request);
      const userId = request.params.id;
      const { role } = request.body;
      return platform.transaction(async (tx) => {
        const current = await getMembership(tx, { userId, siteId: site.id });
        if (!current) throw TrellisError.of('not_found', { resource: 'Member' });
        if (!canAssignRole({ granter: site.role, role, current: current.role })) {
          throw TrellisError.of(
            'forbidden',
            { resource: 'operation' },
            { hint: `Your role on ${site.id} is ${site.role}; you cannot make a ${current.role} ${role}.` },
          );
        }
        return setMembership(tx, {
          userId,
          siteId: site.id,
          role,
          actor: actorOf(request.principal!),
          clock: app.trellis.clock,
        });
      });
    },
  );

  app.delete(
    '/api/auth/users/:id',
    {
      schema: {
        tags: ['members'],
        summary: "Revoke a user's access to the current site",
        params: MemberParams,
        response: { 200: RevokeMemberResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'members:manage' },
    },
    async (request) => {
      const site = siteOf(request);
      const userId = request.params.id;
      await platform.transaction(async (tx) => {
        const current = await getMembership(tx, { userId, siteId: site.id });
        if (!current) throw TrellisError.of('not_found', { resource: 'Member' });
        if (!roleAtLeast(site.role, current.role)) {
          throw TrellisError.of(
            'forbidden',
            { resource: 'operation' },
            { hint: `A ${site.role} cannot revoke a ${current.role}.` },
          );
        }
        await removeMembership(tx, { userId, siteId: site.id, actor: actorOf(request.principal!) });
      });
      return { ok: true as const, userId, siteId: site.id };
    },
  );
};
