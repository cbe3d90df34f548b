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
import { checkPrecondition, type Precondition, valueTag } from '../shared/entity-tag';
import { internalNodeId } from '../shared/internal-ids';
import { allNodes } from '../shared/node-pages';
import { splitItemProps } from './item-record';
import { reindexItems, searchTextChanged } from './search-index';

/** The node label of content type definitions in a site graph. */
export const TYPE_LABEL = 'ContentType';

/** The node id of a content type definition: `~type:<name>` (shared/internal-ids). */
export function typeNodeId(name: string): string {
  return internalNodeId('type', name);
}

/** How audit entries name a content type: `type:<name>`. */
function typeResourceId(name: string): string {
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
 * What {@link getTypeForRead} would answer from its cache right now, without a promise; undefined
 * when it would read the engine (then call it).
 */
export function peekTypeForRead(graph: GraphReader, name: string): StoredContentType | undefined {
  const hit = readCache.get(unboundedGraph(graph))?.get(name);
  return hit && hit.expires > Date.now() ? hit.type : undefined;
}

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

/** Drops the read cache's definition of `name` (after this instance changed or deleted it). */
export function forgetType(graph: GraphReader, name: string): void {
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

/**
 * Creates a content type; 409 `conflict` when the name is taken, 400 when the definition is
 * invalid. Answers the type as stored (with `createdAt`/`updatedAt`, which {@link typeTag} covers).
 */
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
  const node = {
    id: typeNodeId(definition.name),
    labels: [TYPE_LABEL],
    props: { ...definition, createdAt: now, updatedAt: now },
  };
  await graph.transaction(async (tx) => {
    await tx.createNode(node);
    await tx.appendAudit({ actor, action: 'type.create', target: typeResourceId(definition.name) });
  });
  forgetType(graph, definition.name);
  await declareUniques(graph, definition);
  return toStoredType(node);
}

/** The ETag of a content type as stored: `GET /api/types/{name}` sends it, `If-Match` on PATCH checks it. */
export function typeTag(type: StoredContentType): string {
  return valueTag(type);
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
 * change. Stored items keep their fields (when the type's text fields change, their search
 * text is recomputed, in the same transaction): a change that would make any of them invalid
 * (a new required field, a removed field they use, a narrower rule, a new unique field with
 * duplicates, a new nodeLabel while items exist) is refused with 409 `type_change_conflict`
 * naming the field and how many items fail. With a `precondition` (`If-Match`), 409
 * `version_conflict` when the stored type is no longer the one the caller read. Answers the
 * type as stored.
 */
export async function updateType({
  graph,
  name,
  patch,
  actor,
  clock,
  precondition,
}: {
  graph: Graph;
  name: string;
  patch: UpdateContentTypeBody;
  actor: string;
  clock: Clock;
  precondition?: Precondition;
}): Promise<StoredContentType> {
  const current = await getType(graph, name);
  // Checked first to answer a stale write without the work below, and again in the write's transaction.
  checkPrecondition({ precondition, current: typeTag(current), resource: `content type ${name}` });
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
  const written = await graph.transaction(async (tx) => {
    const node = await tx.getNode(typeNodeId(name));
    const stored = node?.labels.includes(TYPE_LABEL) ? toStoredType(node) : null;
    checkPrecondition({
      precondition,
      current: stored ? typeTag(stored) : null,
      resource: `content type ${name}`,
    });
    const props = { ...definition, createdAt: node?.props.createdAt, updatedAt: clock.now().toISOString() };
    await tx.updateNode(typeNodeId(name), { props });
    if (items.length > 0 && searchTextChanged(current, definition)) await reindexItems(tx, definition);
    await tx.appendAudit({ actor, action: 'type.update', target: typeResourceId(name) });
    return toStoredType({
      id: typeNodeId(name),
      labels: [TYPE_LABEL],
      props: JSON.parse(JSON.stringify(props)),
    });
  });
  forgetType(graph, name);
  return written;
}
