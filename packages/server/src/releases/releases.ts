import {
  type AddIncludeBody,
  assertReleaseTransition,
  type CreateReleaseBody,
  type Include,
  type IncludeFacts,
  type ItemHead,
  type Release,
  type ReleaseState,
  runReviews,
  TrellisError,
} from '@trelliscms/core';
import { CONTENT_LABEL } from '../content/item-record';
import { getTombstone } from '../content/item-tombstone';
import { getVersion } from '../content/versions';
import type { Graph, GraphReader } from '../engines/port';
import { isoTime, RELEASE_LABEL, releaseProps, toRelease } from './release-records';

/** The release `id`; 404 `not_found` when there is none. */
export async function getRelease(reader: GraphReader, id: string): Promise<Release> {
  const node = await reader.getNode(id);
  if (!node?.labels.includes(RELEASE_LABEL))
    throw TrellisError.of('not_found', { resource: `Release \`${id}\`` });
  return toRelease(node);
}

/** A page of releases newest first, optionally in one state, with the count of all that match. */
export async function listReleases(
  reader: GraphReader,
  { state, limit, offset = 0 }: { state?: ReleaseState; limit: number; offset?: number },
): Promise<{ items: Release[]; total: number }> {
  const page = await reader.findNodes({
    label: RELEASE_LABEL,
    where: state ? [{ prop: 'state', op: 'eq', value: state }] : [],
    orderBy: [{ prop: 'createdAt', direction: 'desc' }],
    limit,
    offset,
  });
  return { items: page.nodes.map(toRelease), total: page.total };
}

/**
 * The head of a content item now (version and hash) and whether it was deleted: a deleted item
 * whose versions releases pin has a tombstone holding its head at deletion (so deleting it
 * does not make the reviews of those releases stale); `head` is null when there is no such item.
 */
async function itemState(
  reader: GraphReader,
  id: string,
): Promise<{ head: ItemHead | null; deleted: boolean }> {
  const node = await reader.getNode(id);
  if (node?.labels.includes(CONTENT_LABEL)) {
    return {
      head: { version: Number(node.props.version ?? 1), hash: String(node.props.hash ?? '') },
      deleted: false,
    };
  }
  const tombstone = await getTombstone(reader, id);
  return tombstone
    ? { head: { version: tombstone.version, hash: tombstone.hash }, deleted: true }
    : { head: null, deleted: false };
}

/** The head of a content item now (its tombstone's for a deleted item), or null when there is none. */
export async function itemHead(reader: GraphReader, id: string): Promise<ItemHead | null> {
  return (await itemState(reader, id)).head;
}

/** The heads of the items of `includes`. */
export async function includeHeads(
  reader: GraphReader,
  includes: readonly Include[],
): Promise<Map<string, ItemHead | null>> {
  const heads = new Map<string, ItemHead | null>();
  for (const include of includes)
    heads.set(include.versionableId, await itemHead(reader, include.versionableId));
  return heads;
}

async function includeFacts(
  reader: GraphReader,
  includes: readonly Include[],
): Promise<Map<string, IncludeFacts>> {
  const facts = new Map<string, IncludeFacts>();
  for (const include of includes) {
    const version = await getVersion(reader, include.versionableId, include.version);
    const { head, deleted } = await itemState(reader, include.versionableId);
    facts.set(include.versionableId, { head, storedHash: version?.hash ?? null, deleted });
  }
  return facts;
}

/**
 * Checks includes about to enter a release: kind `content`, one per item (also against
 * `existing`), and the exact stored version with the same hash. 400 `business_rule` otherwise.
 */
async function checkIncludes(
  reader: GraphReader,
  includes: readonly Include[],
  existing: readonly Include[] = [],
): Promise<void> {
  const seen = new Set(existing.map((include) => include.versionableId));
  for (const include of includes) {
    const id = include.versionableId;
    if (include.kind !== 'content') {
      throw TrellisError.of('business_rule', {
        detail: `Include kind \`${include.kind}\` is not supported; releases bundle content item versions (kind \`content\`).`,
      });
    }
    if (seen.has(id)) {
      throw TrellisError.of('business_rule', {
        detail: `${id} is already included; a release holds one version per item.`,
      });
    }
    seen.add(id);
    const version = await getVersion(reader, id, include.version);
    if (!version) {
      throw TrellisError.of('business_rule', {
        detail: `${id} has no version ${include.version}; GET /api/content/{type}/${id}/versions lists them.`,
      });
    }
    if (version.hash !== include.hash) {
      throw TrellisError.of('business_rule', {
        detail: `The hash of ${id} version ${include.version} is ${version.hash}, not ${include.hash}.`,
      });
    }
  }
}

function withAt(include: AddIncludeBody, now: Date): Include {
  return { ...include, at: isoTime(include.at ?? now) };
}

/** Creates a draft release `release:<name>` (409 when it exists). */
export async function createRelease({
  graph,
  body,
  actor,
  now,
}: {
  graph: Graph;
  body: CreateReleaseBody;
  actor: string;
  now: Date;
}): Promise<Release> {
  const id = `release:${body.name}`;
  return graph.transaction(async (tx) => {
    if (await tx.getNode(id)) {
      throw TrellisError.of('conflict', { detail: `Release \`${id}\` already exists.` });
    }
    if (body.derivedFromReleaseId) await getRelease(tx, body.derivedFromReleaseId);
    const includes = (body.includes ?? []).map((include) => withAt(include, now));
    await checkIncludes(tx, includes);
    const release: Release = {
      id,
      name: body.name,
      description: body.description,
      intent: body.intent,
      derivedFromReleaseId: body.derivedFromReleaseId ?? null,
      state: 'draft',
      includes,
      reviews: [],
      createdAt: now.toISOString(),
      createdBy: actor,
      updatedAt: now.toISOString(),
    };
    await tx.createNode({ id, labels: [RELEASE_LABEL], props: releaseProps(release) });
    await tx.appendAudit({
      actor,
      action: 'release.create',
      target: id,
      data: { includes: includes.length },
    });
    return release;
  });
}

/** Adds an include to a draft release: 409 `conflict` when it is not a draft, 400 for a bad include. */
export async function addInclude({
  graph,
  id,
  body,
  actor,
  now,
}: {
  graph: Graph;
  id: string;
  body: AddIncludeBody;
  actor: string;
  now: Date;
}): Promise<Release> {
  return graph.transaction(async (tx) => {
    const release = await getRelease(tx, id);
    if (release.state !== 'draft') {
      throw TrellisError.of('conflict', {
        detail: `Release \`${id}\` is ${release.state}; includes can be added only while it is a draft.`,
      });
    }
    const include = withAt(body, now);
    await checkIncludes(tx, [include], release.includes);
    const next: Release = {
      ...release,
      includes: [...release.includes, include],
      updatedAt: now.toISOString(),
    };
    await tx.updateNode(id, { props: releaseProps(next) });
    await tx.appendAudit({
      actor,
      action: 'release.include',
      target: id,
      data: { versionableId: include.versionableId, version: include.version, hash: include.hash },
    });
    return next;
  });
}

/** Moves a release to `to` (see core `assertReleaseTransition`); a move to pending runs the reviews. */
export async function transitionRelease({
  graph,
  id,
  to,
  actor,
  now,
  comment,
}: {
  graph: Graph;
  id: string;
  to: ReleaseState;
  actor: string;
  now: Date;
  comment?: string;
}): Promise<Release> {
  return graph.transaction(async (tx) => {
    const release = await getRelease(tx, id);
    const { runsReviews } = assertReleaseTransition({ from: release.state, to });
    const reviews = runsReviews
      ? runReviews({ includes: release.includes, facts: await includeFacts(tx, release.includes), now })
      : release.reviews;
    const next: Release = { ...release, state: to, reviews, updatedAt: now.toISOString() };
    await tx.updateNode(id, { props: releaseProps(next) });
    await tx.appendAudit({
      actor,
      action: 'release.transition',
      target: id,
      data: { from: release.state, to, ...(comment ? { comment } : {}) },
    });
    return next;
  });
}
