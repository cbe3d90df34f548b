import { PageQuery, TrellisError } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import type { Graph } from '../../engines/port';
import { errorResponses } from '../../http/error-responses';
import { ifMatchOf, withEtag } from '../../http/etag';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { checkPrecondition, valueTag } from '../../shared/entity-tag';
import { listSiteResources, resourceAuditId, resourceNodeId, type SiteResourceSpec } from '../site-resources';

const errors = errorResponses(400, 401, 403, 404, 409);

/** Registers list, get, create and update routes for one namespace. */
export function registerSiteResource(app: FastifyInstance, spec: SiteResourceSpec): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const noun = spec.label.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const notFound = (key: string) => TrellisError.of('not_found', { resource: `${spec.label} \`${key}\`` });
  const readPermission = spec.readPermission ?? 'content:read';

  typed.get(
    `/api/${spec.base}`,
    {
      schema: {
        tags: [spec.base],
        summary: `List the site’s ${noun}s`,
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: spec.list, ...errors },
      },
      config: { siteScope: 'site', permission: readPermission },
    },
    async (request, reply) => {
      const page = pageOf(await listSiteResources(siteOf(request).graph, spec), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  typed.get(
    `/api/${spec.base}/:${spec.key}`,
    {
      schema: {
        tags: [spec.base],
        summary: `One ${noun}`,
        params: spec.params,
        response: { 200: spec.item, ...errors },
      },
      config: { siteScope: 'site', permission: readPermission },
    },
    async (request, reply) => {
      const key = String((request.params as Record<string, unknown>)[spec.key]);
      const node = await siteOf(request).graph.getNode(resourceNodeId(spec, key));
      if (!node) throw notFound(key);
      return withEtag(reply, valueTag(node.props)).send(node.props);
    },
  );

  typed.post(
    `/api/${spec.base}`,
    {
      schema: {
        tags: [spec.base],
        summary: `Create a ${noun}`,
        body: spec.create,
        response: { 201: spec.item, ...errors },
      },
      config: { siteScope: 'site', permission: spec.writePermission },
    },
    async (request, reply) => {
      const body = request.body as Record<string, unknown>;
      const key = (body[spec.key] as string | undefined) ?? spec.deriveKey?.(body);
      if (!key) throw TrellisError.of('validation_failed', { detail: `body.${spec.key}: required` });
      const now = app.trellis.clock.now().toISOString();
      const props = { ...body, [spec.key]: key, createdAt: now, updatedAt: now };
      const graph: Graph = siteOf(request).graph;
      await graph.transaction(async (tx) => {
        if (await tx.getNode(resourceNodeId(spec, key))) {
          throw TrellisError.of('conflict', {
            detail: `A ${noun} \`${key}\` already exists; PATCH /api/${spec.base}/${key} changes it.`,
          });
        }
        await spec.check?.(tx, props);
        await tx.createNode({ id: resourceNodeId(spec, key), labels: [spec.label], props });
        await tx.appendAudit({
          actor: actorOf(request.principal!),
          action: `${spec.base}.create`,
          target: resourceAuditId(spec, key),
        });
      });
      return withEtag(reply, valueTag(props)).status(201).send(props);
    },
  );

  for (const method of spec.updateMethods ?? ['patch', 'put']) {
    typed.route({
      method: method.toUpperCase() as 'PATCH' | 'PUT',
      url: `/api/${spec.base}/:${spec.key}`,
      schema: {
        tags: [spec.base],
        summary: `Change a ${noun} (the given keys replace the stored ones)`,
        description:
          'With `If-Match` (the ETag of the read), 409 `version_conflict` when it changed since it was read.',
        params: spec.params,
        body: spec.update,
        response: { 200: spec.item, ...errors },
      },
      config: { siteScope: 'site', permission: spec.writePermission },
      handler: async (request, reply) => {
        const key = String((request.params as Record<string, unknown>)[spec.key]);
        const patch = request.body as Record<string, unknown>;
        const written = await siteOf(request).graph.transaction(async (tx) => {
          const node = await tx.getNode(resourceNodeId(spec, key));
          if (!node) throw notFound(key);
          checkPrecondition({
            precondition: ifMatchOf(request),
            current: valueTag(node.props),
            resource: `${noun} ${key}`,
          });
          const { createdAt, updatedAt: _updatedAt, ...stored } = node.props;
          const merged: Record<string, unknown> = { ...stored, ...patch, [spec.key]: key };
          for (const [name, value] of Object.entries(patch)) if (value === null) delete merged[name];
          if (spec.rules) {
            const checked = spec.rules.safeParse(merged);
            if (!checked.success) {
              const detail = checked.error.issues
                .map((issue) => `body.${issue.path.join('.')}: ${issue.message}`)
                .join('; ');
              throw TrellisError.of('validation_failed', { detail });
            }
          }
          const props = { ...merged, createdAt, updatedAt: app.trellis.clock.now().toISOString() };
          await spec.check?.(tx, props);
          await tx.updateNode(resourceNodeId(spec, key), { props });
          await tx.appendAudit({
            actor: actorOf(request.principal!),
            action: `${spec.base}.update`,
            target: resourceAuditId(spec, key),
          });
          return props;
        });
        return withEtag(reply, valueTag(written)).send(written);
      },
    });
  }
}
