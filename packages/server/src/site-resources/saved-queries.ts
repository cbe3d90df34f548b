import {
  bindQueryParams,
  type ContentRecord,
  checkGraphQuery,
  driveAsync,
  type GraphQuery,
  type GraphQueryReader,
  type QueryParams,
  type RunQueryBody,
  type RunQueryResponse,
  runGraphQuery,
  type StoredContentType,
  TrellisError,
} from '@trelliscms/core';
import { CONTENT_LABEL, toContentRecord, typeOfId } from '../content/item-record';
import { listTypes } from '../content/type-repository';
import type { GraphEdge, GraphReader } from '../engines/port';
import { allNodes } from '../shared/node-pages';
import { resourceNodeId, type SiteResourceSpec } from './site-resources';

/** What a saved query reads of an item: its record, with the status a snapshot gives it. */
type QueryRecord = ContentRecord & { status: string };

/**
 * The site graph as a saved query reads it (core's evaluator, `content/graph-query.ts`): every
 * item of the site, whatever its publishing state (as `GET /api/content/{type}` and a `dev`
 * build see them), and the edges between items. The content types and each edge label's
 * edges are read once per reader; a reader serves one run.
 */
export function engineQueryReader(graph: GraphReader): GraphQueryReader<QueryRecord> {
  let types: Promise<StoredContentType[]> | undefined;
  const typesOf = () => {
    types ??= listTypes(graph);
    return types;
  };
  const edgesByLabel = new Map<string, Promise<{ out: Map<string, string[]>; in: Map<string, string[]> }>>();
  const edgesOf = (label: string) => {
    let indexed = edgesByLabel.get(label);
    if (!indexed) {
      indexed = graph.getEdges(label === '*' ? {} : { type: label }).then(indexEdges);
      edgesByLabel.set(label, indexed);
    }
    return indexed;
  };
  const recordOf = (node: Parameters<typeof toContentRecord>[0]): QueryRecord => {
    const record = toContentRecord(node);
    return { ...record, status: record.status ?? 'draft' };
  };
  return {
    type: async (name) => (await typesOf()).find((type) => type.name === name) ?? null,
    itemsOfType: async (name) => {
      const type = (await typesOf()).find((candidate) => candidate.name === name);
      if (!type) return [];
      const nodes = await allNodes(graph, { label: type.nodeLabel });
      return nodes.filter((node) => typeOfId(node.id) === name).map(recordOf);
    },
    neighbours: async (ids, edge, direction) => {
      const index = (await edgesOf(edge))[direction];
      const out = new Map<string, readonly string[]>();
      for (const id of ids) {
        const next = index.get(id);
        if (next) out.set(id, next);
      }
      return out;
    },
    items: async (ids) => {
      const known = new Set((await typesOf()).map((type) => type.name));
      const out = new Map<string, QueryRecord>();
      for (const node of await graph.getNodes([...ids])) {
        if (node.labels.includes(CONTENT_LABEL) && known.has(typeOfId(node.id)))
          out.set(node.id, recordOf(node));
      }
      return out;
    },
  };
}

function indexEdges(edges: GraphEdge[]): { out: Map<string, string[]>; in: Map<string, string[]> } {
  const out = new Map<string, string[]>();
  const into = new Map<string, string[]>();
  for (const edge of edges) {
    push(out, edge.from, edge.to);
    push(into, edge.to, edge.from);
  }
  return { out, in: into };
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Checks a saved query against the site's content types (the spec's `check`): 400
 * `invalid_query` naming the clause that names a type, field or operator the site cannot answer.
 */
export async function checkSavedQuery(resource: Record<string, unknown>, graph: GraphReader): Promise<void> {
  const query = resource.query as GraphQuery | undefined;
  if (!query) return;
  const reader = engineQueryReader(graph);
  await driveAsync(checkGraphQuery(query, (name) => reader.type(name)));
}

/**
 * Runs the saved query `name` (404 `not_found` when there is none) with a run's parameters:
 * 400 `invalid_query_params` for parameters that do not fit the declarations, 400
 * `invalid_query` when the query no longer fits the site's types. Bounded like every read of
 * the request's graph (504 `query_timeout`).
 */
export async function runSavedQuery({
  graph,
  spec,
  name,
  body,
}: {
  graph: GraphReader;
  spec: Pick<SiteResourceSpec, 'label'>;
  name: string;
  body: RunQueryBody;
}): Promise<RunQueryResponse> {
  const started = performance.now();
  const node = await graph.getNode(resourceNodeId(spec, name));
  if (!node) throw TrellisError.of('not_found', { resource: `Saved query \`${name}\`` });
  const query = node.props.query as GraphQuery;
  const values = bindQueryParams({
    name,
    params: node.props.params as QueryParams | undefined,
    given: body.params,
  });
  const result = await runGraphQuery({
    query,
    values,
    reader: engineQueryReader(graph),
    page: { limit: body.limit, offset: body.offset },
  });
  return {
    ok: true,
    name,
    items: result.rows,
    count: result.rows.length,
    total: result.total,
    limit: result.limit,
    offset: result.offset,
    tookMs: Math.round(performance.now() - started),
  };
}
