import {
  type ContentType,
  describeIssues,
  findTypeChangeConflicts,
  type StoredContentType,
  TrellisError,
  type UpdateContentTypeBody,
  validateTypeDefinition,
} from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader } from '../engines/port';
import type { Clock } from '../shared/clock';
import { unboundedGraph } from '../shared/deadline-graph';
import { allNodes } from '../shared/node-pages';
import { splitItemProps } from './item-record';

/** The node label of content type definitions in a site graph. */
export const TYPE_LABEL = 'ContentType';

/** The node id of a content type definition: `type:<name>`. */
export function typeNodeId(name: string): string {
  return `type:${name}`;
}

/** Reads a stored definition; legacy rows without `emitPages` read as true. */
export function toStoredType(node: GraphNode): StoredContentType {
  const props = node.props as Partial<StoredContentType> & ContentType;
  return {
    ...props,
    relationships: props.relationships ?? [],
    routePattern: props.routePattern ?? null,
    emitPages: typeof props.emitPages === 'boolean' ? props.emitPages : props.listingOnly !== true,
  };
}

/** The content type `name`, or null. */
export async function findType(graph: GraphReader, name: string): Promise<StoredContentType | null> {
  const node = await graph.getNode(typeNodeId(name));
  return node?.labels.includes(TYPE_LABEL) ? toStoredType(node) : null;
}

/** The content type `name`; 404 `not_found` when the site has none. */
export async function getType(graph: GraphReader, name: string): Promise<StoredContentType> {
  const type = await findType(graph, name);
  if (!type) {
    throw TrellisError.of(
      'not_found',
      { resource: `Content type \`${name}\`` },
      { hint: 'List the site’s types with GET /api/types.' },
    );
  }
  return type;
}

/** How long a read may use a cached definition (writes always read the stored one). */
const READ_CACHE_MS = 2_000;
const readCache = new WeakMap<GraphReader, Map<string, { type: StoredContentType; expires: number }>>();

/**
 * The content type `name` for a read path (404 otherwise), from a short-lived per-graph cache:
 * reads only use a definition to check the node label and group relationships, so a change
 * made by another server instance shows within {@link READ_CACHE_MS}; this instance's own
 * changes show at once.
 */
export async function getTypeForRead(graph: GraphReader, name: string): Promise<StoredContentType> {
  const now = Date.now();
  // keyed by the graph itself, not a request's bounded view of it
  const key = unboundedGraph(graph);
  let byName = readCache.get(key);
  const hit = byName?.get(name);
  if (hit && hit.expires > now) return hit.type;
  const type = await getType(graph, name);
  if (!byName) {
    byName = new Map();
    readCache.set(key, byName);
  }
  byName.set(name, { type, expires: now + READ_CACHE_MS });
  return type;
}

function forgetType(graph: GraphReader, name: string): void {
  readCache.get(unboundedGraph(graph))?.delete(name);
}

/** Every content type of the site, by name. */
export async function listTypes(graph: GraphReader): Promise<StoredContentType[]> {
  const page = await graph.findNodes({ label: TYPE_LABEL, orderBy: [{ prop: 'name' }] });
  return page.nodes.map(toStoredType);
}

function assertValid(input: ContentType, types: StoredContentType[]): StoredContentType {
  const { definition, issues } = validateTypeDefinition({
    input,
    typeNames: new Set(types.map((type) => type.name)),
  });
  const other = types.find((type) => type.nodeLabel === input.nodeLabel && type.name !== input.name);
  if (other)
    issues.push({
      field: 'nodeLabel',
      message: `\`${input.nodeLabel}\` is already the label of type ${other.name}`,
    });
  if (issues.length > 0) {
    throw TrellisError.of('validation_failed', { detail: describeIssues(issues) }, { extra: { issues } });
  }
  return definition;
}

const declared = new WeakMap<Graph, Set<string>>();

/**
 * Declares the type's unique fields to the engine (idempotent; remembered per graph, so it
 * costs nothing after the first call). Types written by other paths (starter kits) get their
 * constraints on first use.
 */
export async function declareUniques(graph: Graph, type: StoredContentType): Promise<void> {
  // keyed by the graph itself, not a request's bounded view of it
  const key = unboundedGraph(graph);
  let done = declared.get(key);
  if (!done) {
    done = new Set();
    declared.set(key, done);
  }
  for (const field of type.fields) {
    const key = `${type.nodeLabel}.${field.name}`;
    if (!field.unique || done.has(key)) continue;
    await graph.ensureUnique(type.nodeLabel, field.name);
    done.add(key);
  }
}

/** The content type `name` with its unique constraints in place, ready for item writes; 404 otherwise. */
export async function getTypeForWrite(graph: Graph, name: string): Promise<StoredContentType> {
  const type = await getType(graph, name);
  await declareUniques(graph, type);
  return type;
}

/** Creates a content type; 409 `conflict` when the name is taken, 400 when the definition is invalid. */
export async function createType({
  graph,
  input,
  actor,
  clock,
}: {
  graph: Graph;
  input: ContentType;
  actor: string;
  clock: Clock;
}): Promise<StoredContentType> {
  const types = await listTypes(graph);
  if (types.some((type) => type.name === input.name)) {
    throw TrellisError.of('conflict', { detail: `A content type named \`${input.name}\` already exists.` });
  }
  const definition = assertValid(input, types);
  const now = clock.now().toISOString();
  await graph.transaction(async (tx) => {
    await tx.createNode({
      id: typeNodeId(definition.name),
      labels: [TYPE_LABEL],
      props: { ...definition, createdAt: now, updatedAt: now },
    });
    await tx.appendAudit({ actor, action: 'type.create', target: typeNodeId(definition.name) });
  });
  forgetType(graph, definition.name);
  await declareUniques(graph, definition);
  return definition;
}

/** The stored items of a type, as `{id, fields}` for checking a definition change. */
async function storedItems(
  graph: GraphReader,
  type: StoredContentType,
): Promise<Array<{ id: string; fields: Record<string, unknown> }>> {
  const nodes = await allNodes(graph, { label: type.nodeLabel });
  return nodes.map((node) => ({ id: node.id, fields: splitItemProps(node.props).fields }));
}

/**
 * Applies a partial definition (the given keys replace the stored ones). The name cannot
 * change. Stored items are never rewritten: a change that would make any of them invalid
 * (a new required field, a removed field they use, a narrower rule, a new unique field with
 * duplicates, a new nodeLabel while items exist) is refused with 409 `type_change_conflict`
 * naming the field and how many items fail.
 */
export async function updateType({
  graph,
  name,
  patch,
  actor,
  clock,
}: {
  graph: Graph;
  name: string;
  patch: UpdateContentTypeBody;
  actor: string;
  clock: Clock;
}): Promise<StoredContentType> {
  const current = await getType(graph, name);
  if (patch.name !== undefined && patch.name !== name) {
    throw TrellisError.of('validation_failed', { detail: 'the name of a content type cannot change' });
  }
  const merged = { ...current, ...patch, name } as ContentType;
  if (patch.listingOnly !== undefined && patch.emitPages === undefined) delete merged.emitPages;
  const types = await listTypes(graph);
  const definition = assertValid(merged, types);
  const items = await storedItems(graph, current);
  if (items.length > 0 && definition.nodeLabel !== current.nodeLabel) {
    throw TrellisError.of('type_change_conflict', {
      field: 'nodeLabel',
      count: items.length,
      detail: 'the node label cannot change while the type has items',
    });
  }
  const [conflict] = findTypeChangeConflicts({ type: definition, items });
  if (conflict) {
    throw TrellisError.of(
      'type_change_conflict',
      {
        field: conflict.field,
        count: conflict.count,
        detail: `e.g. ${conflict.exampleId}: \`${conflict.field}\` ${conflict.message}`,
      },
      {
        hint: 'Fix or remove those items first (or make the rule optional), then retry.',
        extra: { field: conflict.field, count: conflict.count, exampleId: conflict.exampleId },
      },
    );
  }
  await declareUniques(graph, definition);
  await graph.transaction(async (tx) => {
    const node = await tx.getNode(typeNodeId(name));
    await tx.updateNode(typeNodeId(name), {
      props: { ...definition, createdAt: node?.props.createdAt, updatedAt: clock.now().toISOString() },
    });
    await tx.appendAudit({ actor, action: 'type.update', target: typeNodeId(name) });
  });
  forgetType(graph, name);
  return definition;
}
