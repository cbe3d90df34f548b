import { type Environment, TrellisError, type UpsertEnvironmentBody } from '@trelliscms/core';
import type { Graph, GraphReader } from '../engines/port';
import { checkPrecondition, type Precondition, valueTag } from '../shared/entity-tag';
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

/** The id `env:<name>` of an environment given by name (`prod`) or id (`env:prod`). */
export function environmentIdOf(nameOrId: string): string {
  return nameOrId.startsWith('env:') ? nameOrId : `env:${nameOrId}`;
}

/**
 * The environment given by name (`prod`) or id (`env:prod`): a stored one, or one of the
 * defaults (`env:dev`, `env:prod` always exist). Environments are never created on first use:
 * any other name is 400 `unknown_environment`, naming the site's environments.
 */
export async function getEnvironment(reader: GraphReader, nameOrId: string): Promise<Environment> {
  const id = environmentIdOf(nameOrId);
  const node = await reader.getNode(id);
  if (node?.labels.includes(ENVIRONMENT_LABEL)) return toEnvironment(node);
  const fallback = DEFAULT_ENVIRONMENTS.find((env) => env.id === id);
  if (fallback) return fallback;
  const known = (await listEnvironments(reader)).map((env) => env.id);
  throw TrellisError.of(
    'unknown_environment',
    { env: id, known: known.map((env) => `\`${env}\``).join(', ') },
    { extra: { environments: known } },
  );
}

/** The ETag of an environment (as the list shows it); `If-Match` on its PUT checks it. */
export function environmentTag(environment: Environment): string {
  return valueTag(environment);
}

/**
 * Creates or replaces an environment (audited). With a `precondition` (`If-Match`), 409
 * `version_conflict` unless the environment exists and is still the one the caller read.
 */
export async function upsertEnvironment({
  graph,
  id,
  body,
  actor,
  precondition,
}: {
  graph: Graph;
  id: string;
  body: UpsertEnvironmentBody;
  actor: string;
  precondition?: Precondition;
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
    if (precondition) {
      const node = await tx.getNode(id);
      const current = node?.labels.includes(ENVIRONMENT_LABEL)
        ? toEnvironment(node)
        : (DEFAULT_ENVIRONMENTS.find((env) => env.id === id) ?? null);
      checkPrecondition({
        precondition,
        current: current ? environmentTag(current) : null,
        resource: `environment ${id}`,
      });
    }
    await tx.putNode({ id, labels: [ENVIRONMENT_LABEL], props });
    await tx.appendAudit({ actor, action: 'environment.upsert', target: id, data: props });
  });
  return environment;
}
