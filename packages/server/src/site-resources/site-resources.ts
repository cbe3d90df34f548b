import { ErrorSchema, TrellisError } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Permission } from '../auth/types';
import type { Graph, GraphNode, GraphReader } from '../engines/port';
import { actorOf } from '../platform/routes/sites';

/**
 * One of docs/api-spec.md §4's "other" site-scoped namespaces (transforms, routes, views, scripts, block
 * types, widgets, page kits): list, get, create and update of JSON resources stored as nodes
 * `<Label>` with id `<idPrefix>:<key>` in the site graph. Every write is audited.
 */
export interface SiteResourceSpec {
  /** The path segment under /api, e.g. `transforms`. */
  base: string;
  /** The node label, e.g. `Transform`. */
  label: string;
  /** The name of the key property and path parameter, e.g. `id`, `slug` or `name`. */
  key: string;
  item: z.ZodType;
  list: z.ZodType;
  create: z.ZodType;
  update: z.ZodType;
  params: z.ZodObject;
  /** Checks a merged resource after an update (e.g. a kind's required keys). */
  rules?: z.ZodType;
  /** Derives the key of a created resource when the body has none. */
  deriveKey?: (body: Record<string, unknown>) => string | undefined;
  /** Sorts the list (default: by key). */
  sortBy?: (a: Record<string, unknown>, b: Record<string, unknown>) => number;
  readPermission?: Permission;
  writePermission: Permission;
  /** Update verbs to register (default PATCH and PUT, both partial). */
  updateMethods?: Array<'patch' | 'put'>;
}

export function resourceNodeId(spec: Pick<SiteResourceSpec, 'label'>, key: string): string {
  return `${spec.label.toLowerCase()}:${key}`;
}

/** Every resource of one namespace, read straight from the graph (used by the snapshot too). */
export async function listSiteResources(
  graph: GraphReader,
  spec: Pick<SiteResourceSpec, 'label' | 'key' | 'sortBy'>,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await graph.findNodes({ label: spec.label, limit: 1000, offset });
    out.push(...page.nodes.map((node: GraphNode) => node.props));
    if (page.nodes.length === 0 || offset + page.nodes.length >= page.total) break;
  }
  const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    String(a[spec.key]).localeCompare(String(b[spec.key]));
  return out.sort(spec.sortBy ?? byKey);
}

const errors = { 400: ErrorSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema };

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
        response: { 200: spec.list, ...errors },
      },
      config: { permission: readPermission },
    },
    async (request) => listSiteResources(request.site!.graph, spec),
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
      config: { permission: readPermission },
    },
    async (request) => {
      const key = String((request.params as Record<string, unknown>)[spec.key]);
      const node = await request.site!.graph.getNode(resourceNodeId(spec, key));
      if (!node) throw notFound(key);
      return node.props;
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
      config: { permission: spec.writePermission },
    },
    async (request, reply) => {
      const body = request.body as Record<string, unknown>;
      const key = (body[spec.key] as string | undefined) ?? spec.deriveKey?.(body);
      if (!key) throw TrellisError.of('validation_failed', { detail: `body.${spec.key}: required` });
      const now = new Date().toISOString();
      const props = { ...body, [spec.key]: key, createdAt: now, updatedAt: now };
      const graph: Graph = request.site!.graph;
      await graph.transaction(async (tx) => {
        if (await tx.getNode(resourceNodeId(spec, key))) {
          throw TrellisError.of('conflict', {
            detail: `A ${noun} \`${key}\` already exists; PATCH /api/${spec.base}/${key} changes it.`,
          });
        }
        await tx.createNode({ id: resourceNodeId(spec, key), labels: [spec.label], props });
        await tx.appendAudit({
          actor: actorOf(request.principal!),
          action: `${spec.base}.create`,
          target: resourceNodeId(spec, key),
        });
      });
      return reply.status(201).send(props);
    },
  );

  for (const method of spec.updateMethods ?? ['patch', 'put']) {
    typed.route({
      method: method.toUpperCase() as 'PATCH' | 'PUT',
      url: `/api/${spec.base}/:${spec.key}`,
      schema: {
        tags: [spec.base],
        summary: `Change a ${noun} (the given keys replace the stored ones)`,
        params: spec.params,
        body: spec.update,
        response: { 200: spec.item, ...errors },
      },
      config: { permission: spec.writePermission },
      handler: async (request) => {
        const key = String((request.params as Record<string, unknown>)[spec.key]);
        const patch = request.body as Record<string, unknown>;
        return request.site!.graph.transaction(async (tx) => {
          const node = await tx.getNode(resourceNodeId(spec, key));
          if (!node) throw notFound(key);
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
          const props = { ...merged, createdAt, updatedAt: new Date().toISOString() };
          await tx.updateNode(resourceNodeId(spec, key), { props });
          await tx.appendAudit({
            actor: actorOf(request.principal!),
            action: `${spec.base}.update`,
            target: resourceNodeId(spec, key),
          });
          return props;
        });
      },
    });
  }
}

/** A slug from a name: `Upper-case titles!` -> `upper-case-titles`. */
export function slugOf(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120);
  return slug || undefined;
}

export { z };
