import { assertTemplateParsesInWorker } from '@trelliscms/builder';
import { type Template, TrellisError } from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader } from '../engines/port';
import type { Clock } from '../shared/clock';
import { checkVersion } from '../shared/entity-tag';
import { internalNodeId } from '../shared/internal-ids';
import { allNodes } from '../shared/node-pages';

/** Node label of a template's head in a site graph (id `~template:<name>`). */
export const TEMPLATE_LABEL = 'Template';
/** Node label of one stored template version (id `~template:<name>@<version>`). */
export const TEMPLATE_VERSION_LABEL = 'TemplateVersion';

/** How long a write may take to become visible on the read side before 502 (docs/api-spec.md §8). */
export const TEMPLATE_VISIBILITY_WAIT_MS = 3000;

export function templateNodeId(name: string): string {
  return internalNodeId('template', name);
}

function versionNodeId(name: string, version: number): string {
  return `${templateNodeId(name)}@${version}`;
}

function toTemplate(node: GraphNode): Template {
  const props = node.props as Record<string, unknown>;
  const version = Number(props.version ?? 1);
  return {
    name: String(props.name),
    content: String(props.content ?? ''),
    version,
    latestVersion: Number(props.latestVersion ?? version),
    boundType: String(props.boundType ?? ''),
    enabled: props.enabled !== false,
    updatedAt: typeof props.updatedAt === 'string' ? props.updatedAt : undefined,
  };
}

/** Every template of the site at its head version, by name. */
export async function listTemplates(graph: GraphReader): Promise<Template[]> {
  return (await allNodes(graph, { label: TEMPLATE_LABEL, orderBy: [{ prop: 'name' }] })).map(toTemplate);
}

/** The head version of a template, or null. */
export async function findTemplate(graph: GraphReader, name: string): Promise<Template | null> {
  const node = await graph.getNode(templateNodeId(name));
  return node?.labels.includes(TEMPLATE_LABEL) ? toTemplate(node) : null;
}

/** The head version of a template; 404 when there is none. */
export async function getTemplate(graph: GraphReader, name: string): Promise<Template> {
  const template = await findTemplate(graph, name);
  if (!template) throw TrellisError.of('not_found', { resource: `Template \`${name}\`` });
  return template;
}

/** Every stored version of a template, oldest first. */
export async function listTemplateVersions(graph: GraphReader, name: string): Promise<Template[]> {
  const head = await getTemplate(graph, name);
  const ids = Array.from({ length: head.latestVersion ?? head.version }, (_, index) =>
    versionNodeId(name, index + 1),
  );
  const nodes = await graph.getNodes(ids);
  return nodes
    .map((node) => ({ ...toTemplate(node), latestVersion: head.latestVersion }))
    .sort((a, b) => a.version - b.version);
}

export interface TemplateWrite {
  name: string;
  content?: string;
  boundType?: string;
  enabled?: boolean;
}

/**
 * Writes a template version: a create when `create` is true (409 when the name exists with
 * other content; an identical retry answers the stored head, so a retried POST is
 * idempotent), else a new version of an existing one (404 when there is none; 409
 * `version_conflict` when `expectedVersion` is given and the head is another). Liquid that
 * does not parse is a 400 naming line and column. The write is read back before answering;
 * when it is not visible within {@link TEMPLATE_VISIBILITY_WAIT_MS}, 502
 * `template_write_not_visible`.
 */
export async function writeTemplate({
  graph,
  input,
  create,
  actor,
  clock,
  expectedVersion,
  visibilityWaitMs = TEMPLATE_VISIBILITY_WAIT_MS,
}: {
  graph: Graph;
  input: TemplateWrite;
  create: boolean;
  actor: string;
  clock: Clock;
  /** The head version the caller read (`If-Match`); null or absent: no check. */
  expectedVersion?: number | null;
  visibilityWaitMs?: number;
}): Promise<{ template: Template; created: boolean }> {
  // parsed in a worker: liquidjs's parse time grows with the square of a template's tags
  if (input.content !== undefined) await assertTemplateParsesInWorker(input.content);
  const written = await graph.transaction(async (tx) => {
    const existing = await tx.getNode(templateNodeId(input.name));
    const head = existing ? toTemplate(existing) : null;
    if (create && head) {
      const same =
        (input.content === undefined || input.content === head.content) &&
        (input.boundType === undefined || input.boundType === head.boundType) &&
        (input.enabled === undefined || input.enabled === head.enabled);
      if (same) return { template: head, created: false };
      throw TrellisError.of('conflict', {
        detail: `Template \`${input.name}\` already exists; PUT /api/templates/${input.name} writes a new version.`,
      });
    }
    if (!create && !head) throw TrellisError.of('not_found', { resource: `Template \`${input.name}\`` });
    if (head && !create) {
      checkVersion({ expected: expectedVersion, current: head.version, resource: `template ${input.name}` });
    }
    const version = (head?.latestVersion ?? 0) + 1;
    const at = clock.now().toISOString();
    const props = {
      name: input.name,
      content: input.content ?? head?.content ?? '',
      boundType: input.boundType ?? head?.boundType ?? '',
      enabled: input.enabled ?? head?.enabled ?? true,
      version,
      latestVersion: version,
      updatedAt: at,
    };
    await tx.putNode({
      id: versionNodeId(input.name, version),
      labels: [TEMPLATE_VERSION_LABEL],
      props: { ...props, actor },
    });
    await tx.putNode({ id: templateNodeId(input.name), labels: [TEMPLATE_LABEL], props });
    await tx.appendAudit({
      actor,
      action: create ? 'template.create' : 'template.update',
      target: `template:${input.name}`,
      data: { version },
    });
    return {
      template: toTemplate({ id: templateNodeId(input.name), labels: [TEMPLATE_LABEL], props }),
      created: true,
    };
  });
  if (!written.created) return written;
  await waitUntilVisible({
    graph,
    name: input.name,
    version: written.template.version,
    waitMs: visibilityWaitMs,
  });
  return written;
}

/** Reads the head back until it shows `version`; 502 `template_write_not_visible` after `waitMs`. */
async function waitUntilVisible({
  graph,
  name,
  version,
  waitMs,
}: {
  graph: GraphReader;
  name: string;
  version: number;
  waitMs: number;
}): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
    const head = await findTemplate(graph, name);
    if (head && head.version >= version) return;
    if (Date.now() >= deadline) {
      throw TrellisError.of(
        'template_write_not_visible',
        { waitMs },
        { hint: 'Retry the same request; template writes are idempotent.' },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
