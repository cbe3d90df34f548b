import type { ApiKey, PlatformRole } from '@trelliscms/core';
import { bumpAccessEpoch } from '../auth/access-epoch';
import { apiKeyLookupId, hashToken, mintApiKey, mintGraphKey } from '../auth/api-key-secret';
import type { Role } from '../auth/types';
import type { Graph, GraphNode, GraphReader, GraphWriter } from '../engines/port';
import type { Clock } from '../shared/clock';

/** Label of API keys in the platform graph. */
export const API_KEY_LABEL = 'ApiKey';

/** An API key as stored: only the sha256 of the token, never the token. */
export interface ApiKeyRecord {
  /** `key:<lookupId>` */
  id: string;
  /** The non-secret lookup part of the token. */
  lookupId: string;
  name: string;
  /** The key's own role: it acts with the lower of this and its creator's role on a site. */
  role: Role;
  /** The user the key acts for (its creator). */
  userId: string;
  /** The site it was minted on; null for the platform-owner key. */
  siteId: string | null;
  /** The sites it works on; null = wherever its user has access (owner key only). */
  allowedSites: string[] | null;
  /** `owner` for the platform-owner key made at first start. */
  platformRole: Extract<PlatformRole, 'owner'> | null;
  hash: string;
  createdAt: string;
  createdBy: string;
  revokedAt: string | null;
  expiresAt: string | null;
  /** An engine-direct graph-level key (`tg_…`): the graph it is bound to (its site's); else null. */
  graph: string | null;
}

function toRecord(node: GraphNode): ApiKeyRecord {
  const p = node.props;
  return {
    id: node.id,
    lookupId: String(p.lookupId),
    name: String(p.name ?? ''),
    role: p.role as Role,
    userId: String(p.userId),
    siteId: typeof p.siteId === 'string' ? p.siteId : null,
    allowedSites: Array.isArray(p.allowedSites) ? (p.allowedSites as string[]) : null,
    platformRole: p.platformRole === 'owner' ? 'owner' : null,
    hash: String(p.hash),
    createdAt: String(p.createdAt ?? ''),
    createdBy: String(p.createdBy ?? ''),
    revokedAt: typeof p.revokedAt === 'string' ? p.revokedAt : null,
    expiresAt: typeof p.expiresAt === 'string' ? p.expiresAt : null,
    graph: typeof p.graph === 'string' ? p.graph : null,
  };
}

/** The non-secret beginning of a key's token, as listed. */
function prefixOf(lookupId: string): string {
  if (lookupId.startsWith('h')) return lookupId;
  if (lookupId.startsWith('g')) return `tg_${lookupId.slice(1)}`;
  return `tk_${lookupId}`;
}

/** The metadata of a key, as listed. */
export function toApiKeyView(record: ApiKeyRecord): ApiKey {
  const view: ApiKey = {
    id: record.id,
    name: record.name,
    role: record.role,
    siteId: record.siteId,
    prefix: prefixOf(record.lookupId),
    createdAt: record.createdAt,
    createdBy: record.createdBy,
    expiresAt: record.expiresAt,
  };
  if (record.allowedSites) view.allowedSites = record.allowedSites;
  if (record.graph) view.graph = record.graph;
  return view;
}

/** The key stored under this lookup id (revoked or not), or null. */
export async function loadApiKey(graph: GraphReader, lookupId: string): Promise<ApiKeyRecord | null> {
  const node = await graph.getNode(`key:${lookupId}`);
  return node?.labels.includes(API_KEY_LABEL) ? toRecord(node) : null;
}

/** The key with this id (`key:<lookupId>`), or null. */
export async function getApiKey(graph: GraphReader, id: string): Promise<ApiKeyRecord | null> {
  const node = await graph.getNode(id);
  return node?.labels.includes(API_KEY_LABEL) ? toRecord(node) : null;
}

/** The live (unrevoked) keys minted on a site, oldest first. */
export async function listApiKeys(graph: Graph, siteId: string): Promise<ApiKeyRecord[]> {
  const page = await graph.findNodes({
    label: API_KEY_LABEL,
    where: [{ prop: 'siteId', op: 'eq', value: siteId }],
    orderBy: [{ prop: 'createdAt' }],
    limit: 10_000,
  });
  return page.nodes.map(toRecord).filter((k) => k.revokedAt === null);
}

/**
 * Mints and stores a key inside a transaction and audits it. With `token` (the operator's
 * `CMS_OWNER_KEY`) that exact token is stored instead of a minted one. Returns the token,
 * which is never stored or shown again.
 */
export async function createApiKey(
  tx: GraphWriter,
  input: {
    name: string;
    role: Role;
    userId: string;
    siteId: string | null;
    allowedSites: string[] | null;
    platformRole?: Extract<PlatformRole, 'owner'> | null;
    expiresAt?: string | null;
    actor: string;
    token?: string;
    clock: Clock;
    /** Mint an engine-direct graph-level key (`tg_…`) bound to this graph (the site's). */
    graph?: string | null;
  },
): Promise<{ record: ApiKeyRecord; token: string }> {
  const minted = input.token
    ? { lookupId: apiKeyLookupId(input.token), token: input.token, hash: hashToken(input.token) }
    : (() => {
        const key = input.graph ? mintGraphKey() : mintApiKey();
        return { lookupId: key.prefixId, token: key.token, hash: key.hash };
      })();
  const node = await tx.createNode({
    id: `key:${minted.lookupId}`,
    labels: [API_KEY_LABEL],
    props: {
      lookupId: minted.lookupId,
      name: input.name,
      role: input.role,
      userId: input.userId,
      siteId: input.siteId,
      allowedSites: input.allowedSites,
      platformRole: input.platformRole ?? null,
      hash: minted.hash,
      createdAt: input.clock.now().toISOString(),
      createdBy: input.actor,
      revokedAt: null,
      expiresAt: input.expiresAt ?? null,
      graph: input.graph ?? null,
    },
  });
  await tx.appendAudit({
    actor: input.actor,
    action: 'apikey.create',
    target: node.id,
    data: { role: input.role, siteId: input.siteId, ...(input.graph ? { graph: input.graph } : {}) },
  });
  return { record: toRecord(node), token: minted.token };
}

/** Marks a key revoked and audits it. Returns the record as it was, or null when unknown. */
export async function revokeApiKey(
  tx: GraphWriter,
  input: { id: string; actor: string; clock: Clock },
): Promise<ApiKeyRecord | null> {
  const node = await tx.getNode(input.id);
  if (!node?.labels.includes(API_KEY_LABEL)) return null;
  await tx.updateNode(input.id, { props: { ...node.props, revokedAt: input.clock.now().toISOString() } });
  await tx.appendAudit({ actor: input.actor, action: 'apikey.revoke', target: input.id });
  await bumpAccessEpoch(tx);
  return toRecord(node);
}
