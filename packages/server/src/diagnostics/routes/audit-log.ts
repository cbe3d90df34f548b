import { AuditLog, AuditLogQuery } from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-responses';
import { withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { auditGraphFor } from '../audit-graph';
import { readAuditLog } from '../audit-log';

const errors = errorResponses(400, 401, 403, 404);

/** GET /api/audit: the audit log to read — who did what to which resource, when (admins). */
export const auditLogRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform, platformGraphName } = app.trellis;

  app.get(
    '/api/audit',
    {
      schema: {
        tags: ['audit'],
        summary: "The site's audit entries, newest first: filter by actor, action, target and time; paged",
        description:
          '`actor`, `action` and `target` match exactly, or as a prefix when they end in `*`. A user id as `actor` ' +
          'also matches the API keys acting for that user. `since` is inclusive, `until` exclusive. `graph` ' +
          "defaults to the site's graph; the platform owner may name the platform graph (memberships, keys, sites).",
        querystring: AuditLogQuery,
        response: { 200: AuditLog, ...errors },
      },
      config: { siteScope: 'site', permission: 'audit:read' },
    },
    async (request, reply) => {
      const query = request.query;
      const graph = auditGraphFor({
        request,
        name: query.graph ?? siteOf(request).graphName,
        platform,
        platformGraphName,
      });
      const log = await app.withQueryTimeout(readAuditLog({ graph, platform, query }));
      withTotal(reply, log.total);
      return log;
    },
  );
};
