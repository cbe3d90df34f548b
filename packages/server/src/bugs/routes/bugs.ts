import {
  BugListQuery,
  BugParams,
  BugReport,
  BugReportList,
  CreateBugReportBody,
  NoContent,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { withTotal } from '../../http/list-page';
import { FixedWindowLimiter } from '../../shared/fixed-window-limiter';
import { createBugReport, deleteBugReport, listBugReports } from '../bug-reports';

const tags = ['bugs'];
const errors = errorResponses(400, 401, 403, 404);

/**
 * `/api/bugs`: problem reports from clients (the admin UI, the CLI, integrations), with the
 * request id of the answer that went wrong, so an operator finds the server's log lines of it
 * (docs/bugs.md). Any signed-in caller reports; platform admins list and delete.
 */
export const bugsRoutes: FastifyPluginAsyncZod = async (app) => {
  const limiter = new FixedWindowLimiter({
    max: app.trellis.config.BUGS_RATE_LIMIT,
    windowMs: app.trellis.config.RATE_LIMIT_WINDOW_MS,
  });

  app.post(
    '/api/bugs',
    {
      schema: {
        tags,
        summary: 'Report a problem',
        description:
          'Any signed-in caller (anonymous reports are refused: 401). `requestId` is the `X-Request-Id` header of the answer that went wrong, the `requestId` of the server’s log lines for that request. `context` is any JSON object up to 16 KiB. Stored with the reporter, the `User-Agent` and the time. Rate-limited per reporter (`BUGS_RATE_LIMIT` per `RATE_LIMIT_WINDOW_MS`: 429 with `Retry-After`).',
        body: CreateBugReportBody,
        response: { 201: BugReport, ...errorResponses(400, 401, 429) },
      },
      config: { siteScope: 'none' },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const waitMs = limiter.hit(principal.userId);
      if (waitMs !== null) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        throw TrellisError.of(
          'rate_limited',
          { retryAfter: seconds },
          { headers: { 'retry-after': String(seconds) } },
        );
      }
      const userAgent = request.headers['user-agent'];
      const report = await createBugReport({
        platform: app.trellis.platform,
        body: request.body,
        reporter: { userId: principal.userId, keyId: principal.keyId ?? null },
        userAgent: typeof userAgent === 'string' ? userAgent : null,
        now: app.trellis.clock.now().toISOString(),
      });
      request.log.info({ bugId: report.id, reportedRequestId: report.requestId }, 'bug reported');
      return reply.status(201).send(report);
    },
  );

  app.get(
    '/api/bugs',
    {
      schema: {
        tags,
        summary: 'List bug reports, newest first (platform admins)',
        description:
          '`limit` (default 50, at most 1000) and `offset` page the list; `requestId` keeps the reports of that request. `X-Total-Count` counts every match.',
        querystring: BugListQuery,
        response: { 200: BugReportList, ...errors },
      },
      config: { siteScope: 'none', permission: 'maintenance:run' },
    },
    async (request, reply) => {
      const page = await listBugReports(app.trellis.platform, request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.delete(
    '/api/bugs/:id',
    {
      schema: {
        tags,
        summary: 'Delete a bug report (platform admins)',
        params: BugParams,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'none', permission: 'maintenance:run' },
    },
    async (request, reply) => {
      await deleteBugReport({
        platform: app.trellis.platform,
        id: request.params.id,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );
};
