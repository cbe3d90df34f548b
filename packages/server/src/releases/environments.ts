import { type Environment, TrellisError, type UpsertEnvironmentBody } from '@trelliscms/core';
import type { Graph, GraphReader } from '../engines/port';
import { DEFAULT_ENVIRONMENTS, ENVIRONMENT_LABEL, toEnvironment } from './release-records';

/** The site's environments by `order`, then id: the stored ones plus the defaults not stored. */
export async function listEnvironments(reader: GraphReader): Promise<Environment[]> {
  const page = await reader.findNodes({ label: ENVIRONMENT_LABEL, limit: 1000 });
  const stored = page.nodes.map(toEnvironment);
  const ids = new Set(stored.map((env) => env.id));
  return [...stored, ...DEFAULT_ENVIRONMENTS.filter((env) => !ids.has(env.id))].sort(
    (a, b) => a.order - b.order || a.id.localeCompare(b.id),
  );
}

/** An environment (stored, or one of the defaults); 404 `not_found` otherwise. */
export async function getEnvironment(reader: GraphReader, id: string): Promise<Environment> {
  const node = await reader.getNode(id);
  if (node?.labels.includes(ENVIRONMENT_LABEL)) return toEnvironment(node);
  const fallback = DEFAULT_ENVIRONMENTS.find((env) => env.id === id);
  if (fallback) return fallback;
  throw TrellisError.of(
    'not_found',
    { resource: `Environment \`${id}\`` },
    { hint: 'Create it with PUT /api/releases/environments/{id}.' },
  );
}

/** Creates or replaces an environment (audited). */
export async function upsertEnvironment({
  graph,
  id,
  body,
  actor,
}: {
  graph: Graph;
  id: string;
  body: UpsertEnvironmentBody;
  actor: string;
}): Promise<Environment> {
  const environment: Environment = {
    id,
    name: body.name ?? id.slice('env:'.length),
    order: body.order,
    autoBuild: body.autoBuild,
    requiresApproval: body.requiresApproval,
    publicUrlOverride: body.publicUrlOverride ?? null,
  };
  const { id: _id, ...props } = environment;
  await graph.transaction(async (tx) => {
    await tx.putNode({ id, labels: [ENVIRONMENT_LABEL], props });
    await tx.appendAudit({ actor, action: 'environment.upsert', target: id, data: props });
  });
  return environment;
}
