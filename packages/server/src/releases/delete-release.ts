import { type Holder, type Release, TrellisError } from '@trelliscms/core';
import { getTombstone, pinnedVersions, tombstoneId, tombstoneNode } from '../content/item-tombstone';
import { versionNodeId } from '../content/versions';
import type { Graph, GraphReader, GraphWriter } from '../engines/port';
import { assertDeletable } from '../shared/in-use';
import { allNodes } from '../shared/node-pages';
import { DEPLOYMENT_LABEL, RELEASE_LABEL, toDeployment } from './release-records';
import { getRelease } from './releases';

/** Why a release that is not a draft cannot be deleted, and what to do. */
function notDraft(release: Release): TrellisError {
  const how =
    release.state === 'deployed'
      ? 'a deployed release is the record of what went live and is never deleted'
      : release.state === 'approved'
        ? 'move it back to pending, then to draft (POST /api/releases/{id}/transition), to delete it'
        : 'move it back to draft (POST /api/releases/{id}/transition {"state": "draft"}) to delete it';
  return TrellisError.of('conflict', {
    detail: `Release \`${release.id}\` is ${release.state}; only a draft release can be deleted: ${how}.`,
  });
}

/**
 * What holds a draft release: its deployments (any status: a release that was ever deployed
 * stays, as the record of what went live) and the releases derived from it.
 */
export async function findReleaseHolders(reader: GraphReader, id: string): Promise<Holder[]> {
  const holders: Holder[] = [];
  const deployments = await allNodes(reader, {
    label: DEPLOYMENT_LABEL,
    where: [{ prop: 'releaseId', op: 'eq', value: id }],
  });
  for (const deployment of deployments.map(toDeployment)) {
    holders.push({
      kind: 'deployment',
      id: deployment.id,
      detail: `${deployment.status} in ${deployment.environmentId}`,
      cascades: false,
    });
  }
  const derived = await allNodes(reader, {
    label: RELEASE_LABEL,
    where: [{ prop: 'derivedFromReleaseId', op: 'eq', value: id }],
  });
  for (const release of derived) {
    holders.push({ kind: 'release', id: release.id, detail: `derived from ${id}`, cascades: false });
  }
  return holders;
}

/**
 * Frees what only `release` kept: versions of deleted items (tombstones) that no other
 * release includes are removed, and a tombstone that keeps nothing any more goes too. Returns
 * the version nodes removed.
 */
async function releasePins(tx: GraphWriter, release: Release): Promise<string[]> {
  const others = (await tx.findNodes({ label: RELEASE_LABEL })).nodes.filter(
    (node) => node.id !== release.id,
  );
  const freed: string[] = [];
  for (const itemId of new Set(release.includes.map((include) => include.versionableId))) {
    const tombstone = await getTombstone(tx, itemId);
    if (!tombstone) continue;
    const pins = await pinnedVersions(tx, itemId, others);
    const kept = tombstone.keptVersions.filter((version) => pins.versions.has(version));
    for (const version of tombstone.keptVersions) {
      if (pins.versions.has(version)) continue;
      await tx.deleteNode(versionNodeId(itemId, version));
      freed.push(versionNodeId(itemId, version));
    }
    if (kept.length === 0) await tx.deleteNode(tombstoneId(itemId));
    else if (kept.length < tombstone.keptVersions.length) {
      await tx.putNode(tombstoneNode({ ...tombstone, keptVersions: kept, releaseIds: pins.releaseIds }));
    }
  }
  return freed;
}

/**
 * Deletes a draft release (404 when there is none), in one transaction with one audit entry:
 * 409 `conflict` unless it is a draft, 409 `in_use` while deployments name it or releases
 * derive from it ({@link findReleaseHolders}; no cascade). The versions of deleted items only
 * it kept are removed with it.
 */
export async function deleteRelease({
  graph,
  id,
  actor,
}: {
  graph: Graph;
  id: string;
  actor: string;
}): Promise<void> {
  await graph.transaction(async (tx) => {
    const release = await getRelease(tx, id);
    if (release.state !== 'draft') throw notDraft(release);
    assertDeletable({
      resource: `Release \`${id}\``,
      holders: await findReleaseHolders(tx, id),
      cascade: false,
    });
    await tx.deleteNode(id);
    const freedVersions = await releasePins(tx, release);
    await tx.appendAudit({
      actor,
      action: 'release.delete',
      target: id,
      data: { includes: release.includes.length, ...(freedVersions.length > 0 ? { freedVersions } : {}) },
    });
  });
}
