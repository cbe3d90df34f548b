import {
  LEAD_CONTROL_FIELDS,
  LEAD_LIMITS,
  LeadAccepted,
  LeadList,
  LeadListQuery,
  LeadParams,
  LeadSubmission,
  NoContent,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../auth/actor';
import { clientBucket } from '../../auth/auth-failure-limiter';
import { errorResponses } from '../../http/error-responses';
import { withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { FixedWindowLimiter } from '../../shared/fixed-window-limiter';
import { allLeads, createLead, deleteLead, listLeads } from '../lead-repository';
import { findLeadSite, type LeadSite, originOf } from '../lead-site';
import { leadsCsv } from '../leads-csv';

const tags = ['leads'];
const errors = errorResponses(400, 401, 403, 404);
const FORM_TYPE = 'application/x-www-form-urlencoded';
const FIELD_NAME = /^[A-Za-z][\w.-]*$/;
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A urlencoded form body as an object; a repeated field's values are joined with `, `. */
function parseForm(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (UNSAFE_KEYS.has(name)) continue;
    fields[name] = Object.hasOwn(fields, name) ? `${fields[name]}, ${value}` : value;
  }
  return fields;
}

/** The request's own origin (a page served by this server posts same-origin). */
function requestOrigin(request: FastifyRequest): string | null {
  return originOf(`${request.protocol}://${request.host}`);
}

/** Whether a page at `origin` may post leads for `site` (and read the answer through CORS). */
function isSiteOrigin(request: FastifyRequest, site: LeadSite, origin: string): boolean {
  return site.origins.has(origin) || origin === requestOrigin(request);
}

function allowCors(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('vary', 'Origin');
}

/** The extra fields of a submission as text, checked against {@link LEAD_LIMITS}. */
function extraFields(body: LeadSubmission): Record<string, string> {
  const known = new Set<string>([...LEAD_CONTROL_FIELDS, 'name', 'email', 'message']);
  const fields: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (known.has(name) || value === null || value === undefined) continue;
    if (name.length > LEAD_LIMITS.maxFieldNameLength || !FIELD_NAME.test(name)) {
      problems.push(
        `field name \`${name.slice(0, 80)}\` must be letters, digits, _ . - (at most ${LEAD_LIMITS.maxFieldNameLength})`,
      );
      continue;
    }
    const text = String(value);
    if (text.length > LEAD_LIMITS.maxValueLength) {
      problems.push(`field \`${name}\` is longer than ${LEAD_LIMITS.maxValueLength} characters`);
    }
    fields[name] = text;
  }
  if (Object.keys(fields).length > LEAD_LIMITS.maxFields) {
    problems.push(`at most ${LEAD_LIMITS.maxFields} fields besides name, email and message`);
  }
  if (problems.length > 0) throw TrellisError.of('validation_failed', { detail: problems.join('; ') });
  return fields;
}

/**
 * Where a browser goes after a non-JS post: `_redirect` (absolute, or relative to the page),
 * else — for a form post — the page itself (`Referer`); only to the site's own origins. Null
 * when the answer is JSON.
 */
function redirectTarget(params: {
  request: FastifyRequest;
  site: LeadSite;
  redirect: string | undefined;
  referer: string | null;
  isForm: boolean;
}): string | null {
  const { request, site, redirect, referer, isForm } = params;
  if (redirect) {
    let target: URL;
    try {
      target = new URL(redirect, referer ?? site.record.publicUrl ?? undefined);
    } catch {
      throw TrellisError.of('validation_failed', { detail: '_redirect: must be a URL on the site' });
    }
    if (!isSiteOrigin(request, site, target.origin)) {
      throw TrellisError.of('validation_failed', {
        detail: `_redirect: ${target.origin} is not one of the site’s origins`,
      });
    }
    return target.href;
  }
  const pageOrigin = originOf(referer);
  return isForm && referer && pageOrigin && isSiteOrigin(request, site, pageOrigin) ? referer : null;
}

/**
 * `/api/leads`: what visitors send through forms on published sites (public, no `X-Site-Id`),
 * and the site members' list, CSV export and delete of them (docs/leads.md).
 */
export const leadsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.trellis;
  const limiter = new FixedWindowLimiter({
    max: config.LEADS_RATE_LIMIT,
    windowMs: config.LEADS_RATE_WINDOW_MS,
  });
  // Only this plugin's routes read forms: a plain HTML form posts urlencoded.
  app.addContentTypeParser(
    FORM_TYPE,
    { parseAs: 'string', bodyLimit: config.LEADS_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, parseForm(body as string)),
  );

  app.options(
    '/api/leads',
    {
      schema: {
        tags,
        summary: 'CORS preflight of a lead post',
        description:
          'Answered 204 with `Access-Control-Allow-Origin` when `Origin` is one of a site’s origins (its `publicUrl`, its environments’ `publicUrlOverride`); other origins get 204 without any CORS header, so the browser refuses the post.',
        response: { 204: NoContent },
      },
      config: { public: true, siteScope: 'none' },
    },
    async (request, reply) => {
      const origin = typeof request.headers.origin === 'string' ? request.headers.origin : null;
      const site = origin
        ? await findLeadSite({
            engine: app.trellis.engine,
            platform: app.trellis.platform,
            slug: undefined,
            origin,
          })
        : null;
      if (origin && site) {
        allowCors(reply, origin);
        reply.header('access-control-allow-methods', 'POST');
        reply.header('access-control-allow-headers', 'Content-Type');
        reply.header('access-control-max-age', '600');
      }
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/leads',
    {
      bodyLimit: config.LEADS_BODY_LIMIT_BYTES,
      onRequest: (request, _reply, done) => {
        const waitMs = limiter.hit(clientBucket(request.ip));
        if (waitMs === null) return done();
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        done(
          TrellisError.of(
            'rate_limited',
            { retryAfter: seconds },
            { headers: { 'retry-after': String(seconds) }, hint: 'Too many leads from this address.' },
          ),
        );
      },
      schema: {
        tags,
        summary: 'Send a lead from a form on a published site (public)',
        description: `JSON or \`${FORM_TYPE}\`. The site is the one whose slug is in \`site\`, else the one whose origin is the request’s \`Origin\`. A post with an \`Origin\` that is not the site’s is refused (403 \`lead_origin_not_allowed\`, no CORS header). A filled \`_honeypot\` is answered as if accepted and nothing is stored. A form post (or one with \`_redirect\`) is answered 303 to \`_redirect\` or to the page (\`Referer\`), on the site’s origins only; otherwise 200 \`{ok: true}\`. Rate-limited per client address (\`LEADS_RATE_LIMIT\` per \`LEADS_RATE_WINDOW_MS\`: 429 with \`Retry-After\`); bodies up to \`LEADS_BODY_LIMIT_BYTES\` (413).`,
        consumes: ['application/json', FORM_TYPE],
        body: LeadSubmission,
        response: { 200: LeadAccepted, ...errorResponses(400, 403, 404, 413, 429) },
      },
      config: { public: true, siteScope: 'none' },
    },
    async (request, reply) => {
      const body = request.body;
      const origin = typeof request.headers.origin === 'string' ? request.headers.origin : null;
      const referer = typeof request.headers.referer === 'string' ? request.headers.referer : null;
      const site = await findLeadSite({
        engine: app.trellis.engine,
        platform: app.trellis.platform,
        slug: body.site,
        origin: origin ?? originOf(referer),
      });
      if (!site) throw TrellisError.of('lead_site_unknown');
      // A browser always sends Origin with a cross-origin post; a server-side sender sends none.
      if (origin !== null && origin !== 'null' && !isSiteOrigin(request, site, origin)) {
        throw TrellisError.of('lead_origin_not_allowed', { origin, site: site.record.slug });
      }
      if (origin !== null && origin !== 'null') allowCors(reply, origin);
      const isForm = (request.headers['content-type'] ?? '').startsWith(FORM_TYPE);
      const target = redirectTarget({ request, site, redirect: body._redirect, referer, isForm });
      const fields = extraFields(body);
      if (!body._honeypot) {
        await createLead({
          graph: site.graph,
          lead: {
            name: body.name ?? null,
            email: body.email ?? null,
            message: body.message ?? null,
            fields,
            pageUrl: referer,
            origin,
          },
          now: app.trellis.clock.now().toISOString(),
        });
      } else {
        request.log.info({ siteId: site.record.id }, 'lead honeypot filled; nothing stored');
      }
      if (target) return reply.redirect(target, 303);
      return { ok: true as const };
    },
  );

  const list = async (request: FastifyRequest, reply: FastifyReply, query: LeadListQuery, csv: boolean) => {
    const graph = siteOf(request).graph;
    if (csv) {
      const leads = await allLeads(graph);
      const slug = siteOf(request).id.replace(/^site:/, '');
      return withTotal(reply, leads.length)
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="leads-${slug}.csv"`)
        .send(leadsCsv(leads));
    }
    const page = await listLeads(graph, { limit: query.limit, offset: query.offset });
    return withTotal(reply, page.total).send(page.items);
  };

  app.get(
    '/api/leads',
    {
      schema: {
        tags,
        summary: 'List the site’s leads, newest first',
        description:
          '`limit` (default 50, at most 1000) and `offset` page the list; `X-Total-Count` counts every lead. `format=csv` answers the CSV export (as GET /api/leads.csv). Leads hold personal data: it needs `content:write` (editor or higher).',
        querystring: LeadListQuery,
        response: { 200: z.union([LeadList, z.string()]), ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => list(request, reply, request.query, request.query.format === 'csv'),
  );

  app.get(
    '/api/leads.csv',
    {
      schema: {
        tags,
        summary: 'Export every lead of the site as CSV',
        description:
          "One row per lead (newest first): `id`, `createdAt`, `name`, `email`, `message`, `pageUrl`, `origin`, then one column per extra field. RFC 4180 quoting; a cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'` so spreadsheets never run it as a formula.",
        response: { 200: z.string(), ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => list(request, reply, { limit: 1, offset: 0 }, true),
  );

  app.delete(
    '/api/leads/:id',
    {
      schema: {
        tags,
        summary: 'Delete a lead',
        params: LeadParams,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      await deleteLead({
        graph: siteOf(request).graph,
        id: request.params.id,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );
};
