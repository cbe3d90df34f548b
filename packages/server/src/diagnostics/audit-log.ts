import type { AuditEntry, AuditLog, AuditLogQuery } from '@trelliscms/core';
import type { AuditFilter, AuditMatch, AuditRecord, Graph, GraphReader } from '../engines/port';
import { API_KEY_LABEL } from '../platform/api-keys';
import { USER_LABEL } from '../platform/users';

/** At most this many API keys of one user widen an `actor=user:…` filter. */
const MAX_KEYS_PER_ACTOR = 999;

/** `value`, or its prefix when it ends in `*` (`post:*`). */
export function textMatch(value: string): AuditMatch {
  return value.endsWith('*') ? { prefix: value.slice(0, -1) } : { in: [value] };
}

/**
 * The actor filter: a prefix, or the exact actor; an exact user id also matches the API keys
 * acting for that user (revoked ones included: they acted for the user while they worked).
 */
async function actorMatch(platform: GraphReader, actor: string): Promise<AuditMatch> {
  const match = textMatch(actor);
  if (!('in' in match) || !actor.startsWith('user:')) return match;
  const keys = await platform.findNodes({
    label: API_KEY_LABEL,
    where: [{ prop: 'userId', op: 'eq', value: actor }],
    limit: MAX_KEYS_PER_ACTOR,
  });
  return { in: [actor, ...keys.nodes.map((node) => node.id)] };
}

/** The engine filter of a GET /api/audit query; times are normalized to UTC as the chain writes them. */
export async function auditFilterOf(platform: GraphReader, query: AuditLogQuery): Promise<AuditFilter> {
  const filter: AuditFilter = { order: query.order, limit: query.limit, offset: query.offset };
  if (query.actor !== undefined) filter.actor = await actorMatch(platform, query.actor);
  if (query.action !== undefined) filter.action = textMatch(query.action);
  if (query.target !== undefined) filter.target = textMatch(query.target);
  if (query.since !== undefined) filter.since = new Date(query.since).toISOString();
  if (query.until !== undefined) filter.until = new Date(query.until).toISOString();
  return filter;
}

/**
 * Display names of the actors of some records, read from the platform graph: a user's name
 * (else e-mail); for an API key, `<key name> (<user name>)`. Unknown actors are absent.
 */
async function actorNames(platform: GraphReader, actors: Iterable<string>): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const ids = [...new Set(actors)].filter((id) => id.startsWith('user:') || id.startsWith('key:'));
  if (ids.length === 0) return names;
  const nodes = await platform.getNodes(ids);
  const userName = (props: Record<string, unknown>): string | null =>
    typeof props.name === 'string' ? props.name : typeof props.email === 'string' ? props.email : null;
  const keyUsers = new Map<string, string>();
  for (const node of nodes) {
    if (node.labels.includes(USER_LABEL)) {
      const name = userName(node.props);
      if (name) names.set(node.id, name);
    } else if (node.labels.includes(API_KEY_LABEL) && typeof node.props.userId === 'string') {
      keyUsers.set(node.id, node.props.userId);
    }
  }
  const owners = new Map(
    (await platform.getNodes([...new Set(keyUsers.values())].filter((id) => !names.has(id)))).map((node) => [
      node.id,
      userName(node.props),
    ]),
  );
  for (const node of nodes) {
    const userId = keyUsers.get(node.id);
    if (userId === undefined) continue;
    const keyName = typeof node.props.name === 'string' && node.props.name ? node.props.name : node.id;
    const owner = names.get(userId) ?? owners.get(userId) ?? null;
    names.set(node.id, owner ? `${keyName} (${owner})` : keyName);
  }
  return names;
}

function toEntry(record: AuditRecord, names: Map<string, string>): AuditEntry {
  const entry: AuditEntry = {
    seq: record.seq,
    ts: record.ts,
    actor: record.actor,
    actorName: names.get(record.actor) ?? null,
    action: record.action,
    target: record.target,
    prevHash: record.prevHash,
    hash: record.hash,
  };
  if (record.data !== undefined) entry.data = record.data;
  return entry;
}

/** GET /api/audit: a page of a graph's audit chain, filtered, with actor names from the platform graph. */
export async function readAuditLog({
  graph,
  platform,
  query,
}: {
  graph: Graph;
  platform: Graph;
  query: AuditLogQuery;
}): Promise<AuditLog> {
  const page = await graph.findAudit(await auditFilterOf(platform, query));
  const names = await actorNames(
    platform,
    page.records.map((record) => record.actor),
  );
  return {
    items: page.records.map((record) => toEntry(record, names)),
    total: page.total,
    limit: query.limit,
    offset: query.offset,
  };
}
