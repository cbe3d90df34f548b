import {
  AccessEntryList,
  GrantBody,
  GrantResponse,
  MemberList,
  PageQuery,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { canAssignRole } from '../../auth/permissions';
import { siteRoleFor } from '../../auth/site-role';
import { errorResponses } from '../../http/error-responses';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { accessibleSites } from '../accessible-sites';
import { getMembership, listMembers, setMembership } from '../members';
import { getUser } from '../users';

const errors = errorResponses(400, 401, 403, 404);

/** Spec §4 Access: my-sites (no X-Site-Id); site-users and grant (admin only, site-scoped). */
export const accessRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform } = app.trellis;

  app.get(
    '/api/access/my-sites',
    {
      schema: {
        tags: ['access'],
        summary: 'The sites the caller can access, with their role',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: AccessEntryList, ...errors },
      },
      config: { siteScope: 'none' },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const entries = [];
      for (const site of await accessibleSites(platform, principal)) {
        const role = await siteRoleFor({ platform, principal, siteId: site.id });
        if (role) entries.push({ siteId: site.id, siteName: site.name, graphName: site.graphName, role });
      }
      const page = pageOf(entries, request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.get(
    '/api/access/site-users',
    {
      schema: {
        tags: ['access'],
        summary: 'Users with access to the current site (admin only)',
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

  app.post(
    '/api/access/grant',
    {
      schema: {
        tags: ['access'],
        summary: 'Grant a user a role on the current site (admin only; never above your own)',
        body: GrantBody,
        response: { 200: GrantResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'members:manage' },
    },
    async (request) => {
      const site = siteOf(request);
      const { userId, role } = request.body;
      const member = await platform.transaction(async (tx) => {
        const user = await getUser(tx, userId);
        if (!user) throw TrellisError.of('not_found', { resource: 'User' });
        const current = (await getMembership(tx, { userId, siteId: site.id }))?.role ?? null;
        if (!canAssignRole({ granter: site.role, role, current })) {
          throw TrellisError.of(
            'forbidden',
            { resource: 'operation' },
            {
              hint: `Your role on ${site.id} is ${site.role}; you cannot grant ${role}${current ? ` to a ${current}` : ''}.`,
            },
          );
        }
        return setMembership(tx, {
          userId,
          siteId: site.id,
          role,
          actor: actorOf(request.principal!),
          action: 'member.grant',
          clock: app.trellis.clock,
        });
      });
      return { ok: true as const, member };
    },
  );
};
