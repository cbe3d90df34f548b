import {
  checkReviewGate,
  type Deployment,
  type DeployReleaseBody,
  type Environment,
  isDeployableState,
  type LiveEntry,
  liveDeploymentAt,
  type Release,
  type ReplayResponse,
  TrellisError,
} from '@trelliscms/core';
import { typeOfId } from '../content/item-record';
import type { Graph, GraphNode, GraphReader, GraphWriter, PropFilter } from '../engines/port';
import { getEnvironment } from './environments';
import {
  applyLiveChanges,
  getLiveHead,
  type LiveTarget,
  liveAfterRevision,
  liveAt,
  readLive,
} from './live-state';
import {
  DEPLOYMENT_LABEL,
  deploymentNode,
  isoTime,
  newDeploymentId,
  releaseProps,
  toDeployment,
} from './release-records';
import { getRelease, includeHeads } from './releases';

/** What a deploy did: the deployment, and its environment (the caller starts a build when it has autoBuild). */
export interface DeployOutcome {
  deployment: Deployment;
  environment: Environment;
}

/** The deployment `id`; 404 `not_found` when there is none. */
export async function getDeployment(reader: GraphReader, id: string): Promise<Deployment> {
  const node = await reader.getNode(id);
  if (!node?.labels.includes(DEPLOYMENT_LABEL)) {
    throw TrellisError.of('not_found', { resource: `Deployment \`${id}\`` });
  }
  return toDeployment(node);
}

/** Checks a release may be deployed: approved or deployed (409), review gate open (409 `review_gate`). */
async function assertDeployable({
  tx,
  release,
  environment,
  skipReviewGate,
}: {
  tx: GraphReader;
  release: Release;
  environment: Environment;
  skipReviewGate: boolean;
}): Promise<void> {
  if (!isDeployableState(release.state)) {
    throw TrellisError.of('conflict', {
      detail: `Release \`${release.id}\` is ${release.state}; only approved (or deployed) releases can be deployed. Move it to pending, then approved.`,
    });
  }
  if (skipReviewGate) {
    if (environment.requiresApproval) {
      throw TrellisError.of('review_gate', {
        detail: `${environment.id} requires approval, so its review gate cannot be skipped.`,
      });
    }
    return;
  }
  const verdict = checkReviewGate({
    includes: release.includes,
    reviews: release.reviews ?? [],
    heads: await includeHeads(tx, release.includes),
  });
  if (!verdict.isOpen) {
    const reasons = [
      ...verdict.blocking,
      ...verdict.stale.map((id) => `the review of ${id} is stale (it changed since the review)`),
    ];
    throw TrellisError.of(
      'review_gate',
      { detail: reasons.join('; ') },
      {
        hint: 'Re-run the reviews with POST /api/releases/{id}/transition {"state":"pending"}, then approve again.',
        extra: { blocking: verdict.blocking, stale: verdict.stale },
      },
    );
  }
}

/** Writes a new deployment (audit-stamped): `pending` until its build is switched in (see release-publisher.ts). */
async function writeDeployment({
  tx,
  release,
  environmentId,
  validFrom,
  intent,
  actor,
  now,
  action,
  rollbackOf,
  live,
}: {
  tx: GraphWriter;
  release: Release;
  environmentId: string;
  validFrom: string;
  intent?: string;
  actor: string;
  now: Date;
  action: string;
  rollbackOf?: string;
  /** For a rollback: it is live at once, served by this build. */
  live?: { buildId: string };
}): Promise<Deployment> {
  const id = newDeploymentId(now);
  const status = live ? 'deployed' : 'pending';
  const audit = await tx.appendAudit({
    actor,
    action,
    target: id,
    data: {
      releaseId: release.id,
      environmentId,
      validFrom,
      status,
      ...(live ? { buildId: live.buildId, rollbackOf } : {}),
    },
  });
  const deployment: Deployment = {
    id,
    status,
    validFrom,
    environmentId,
    releaseId: release.id,
    intent,
    createdAt: now.toISOString(),
    createdBy: actor,
    deployedAt: live ? now.toISOString() : null,
    supersededAt: null,
    supersededBy: null,
    rollbackOf: rollbackOf ?? null,
    auditSeq: audit.seq,
    buildId: live?.buildId ?? null,
    prebuiltBuildId: null,
    error: null,
    failedAt: null,
  };
  await tx.createNode(deploymentNode(deployment));
  return deployment;
}

/** 400 for `env:dev`: dev builds every item's head, so nothing is deployed to it. */
function assertNotDev(environment: Environment): void {
  if (environment.id === 'env:dev') {
    throw TrellisError.of('business_rule', {
      detail:
        'env:dev builds every item at its head version, so releases are not deployed to it; deploy to an environment above dev (e.g. env:prod).',
    });
  }
}

/** The live-state targets of a release: each include's pinned version. */
export function releaseTargets(release: Release): LiveTarget[] {
  return release.includes.map((include) => ({
    itemId: include.versionableId,
    type: typeOfId(include.versionableId),
    version: include.version,
    hash: include.hash,
  }));
}

/**
 * Deploys a release to an environment from `validFrom` (default now): live at once when
 * validFrom is not in the future, else pending until the scheduler fires it. `skipReviewGate`
 * needs the caller to be an admin (checked by the route).
 */
export async function deployRelease({
  graph,
  releaseId,
  body,
  actor,
  now,
}: {
  graph: Graph;
  releaseId: string;
  body: DeployReleaseBody;
  actor: string;
  now: Date;
}): Promise<DeployOutcome> {
  return graph.transaction(async (tx) => {
    const release = await getRelease(tx, releaseId);
    const environment = await getEnvironment(tx, body.environmentId);
    assertNotDev(environment);
    await assertDeployable({ tx, release, environment, skipReviewGate: body.skipReviewGate === true });
    const deployment = await writeDeployment({
      tx,
      release,
      environmentId: environment.id,
      validFrom: isoTime(body.validFrom ?? now),
      intent: body.intent,
      actor,
      now,
      action: body.skipReviewGate ? 'release.deploy.skip_review_gate' : 'release.deploy',
    });
    return { deployment, environment };
  });
}

/** What a rollback will restore: checked before anything is built or written. */
export interface RollbackPlan {
  current: Deployment;
  target: Release;
  /** The target release's latest deployment to the environment (its build, when it has one, is switched back in). */
  earlier: Deployment;
  /** The live state right after `earlier` went live: what the rollback restores. */
  restored: Map<string, LiveEntry>;
  environment: Environment;
}

/**
 * Checks a rollback: the deployment must be `deployed` (409) and `rollbackToReleaseId` a
 * release that was live in the same environment before (400), and reads what it restores.
 */
export async function planRollback(
  reader: GraphReader,
  { deploymentId, rollbackToReleaseId }: { deploymentId: string; rollbackToReleaseId: string },
): Promise<RollbackPlan> {
  const current = await getDeployment(reader, deploymentId);
  if (current.status !== 'deployed') {
    throw TrellisError.of('conflict', {
      detail: `Deployment \`${deploymentId}\` is ${current.status}; only a deployed deployment can be rolled back.`,
    });
  }
  const target = await getRelease(reader, rollbackToReleaseId);
  if (target.id === current.releaseId) {
    throw TrellisError.of('business_rule', {
      detail: `Deployment \`${deploymentId}\` already points at ${target.id}; name an older release.`,
    });
  }
  const earlierPage = await reader.findNodes({
    label: DEPLOYMENT_LABEL,
    where: [
      { prop: 'environmentId', op: 'eq', value: current.environmentId },
      { prop: 'releaseId', op: 'eq', value: target.id },
      { prop: 'status', op: 'in', value: ['deployed', 'superseded'] },
    ],
    orderBy: [{ prop: 'deployedAt', direction: 'desc' }],
    limit: 1,
  });
  const earlierNode = earlierPage.nodes[0];
  if (!earlierNode) {
    throw TrellisError.of('business_rule', {
      detail: `${target.id} was never deployed to ${current.environmentId}; a rollback goes back to a release that was live there.`,
    });
  }
  const earlier = toDeployment(earlierNode);
  const revision = earlierNode.props.liveRevision;
  const restored =
    typeof revision === 'number'
      ? await liveAfterRevision(reader, current.environmentId, revision)
      : withRelease(await readLive(reader, current.environmentId), target);
  const environment = await getEnvironment(reader, current.environmentId);
  return { current, target, earlier, restored, environment };
}

/** `live` with a release's pinned versions put live (a copy). */
export function withRelease(
  live: ReadonlyMap<string, LiveEntry>,
  release: Release,
  at: Date = new Date(0),
  deploymentId: string | null = null,
): Map<string, LiveEntry> {
  const next = new Map(live);
  for (const include of release.includes) {
    next.set(include.versionableId, {
      itemId: include.versionableId,
      type: typeOfId(include.versionableId),
      version: include.version,
      hash: include.hash,
      since: at.toISOString(),
      cause: 'deployment',
      deploymentId,
      releaseId: release.id,
    });
  }
  return next;
}

/**
 * Commits a planned rollback in one transaction, with one audit entry: the rolled-back
 * deployment becomes `superseded`, a new `deployed` deployment of the older release served
 * by `buildId` is recorded, and the environment's live state becomes the restored one.
 * 409 when the deployment is no longer deployed (another rollback won).
 */
export async function commitRollback({
  graph,
  plan,
  buildId,
  actor,
  now,
}: {
  graph: Graph;
  plan: RollbackPlan;
  buildId: string;
  actor: string;
  now: Date;
}): Promise<Deployment> {
  const { current, target, restored } = plan;
  return graph.transaction(async (tx) => {
    const fresh = await getDeployment(tx, current.id);
    if (fresh.status !== 'deployed') {
      throw TrellisError.of('conflict', {
        detail: `Deployment \`${current.id}\` is ${fresh.status}; only a deployed deployment can be rolled back.`,
      });
    }
    const deployment = await writeDeployment({
      tx,
      release: target,
      environmentId: current.environmentId,
      validFrom: now.toISOString(),
      intent: `rollback of ${current.id}`,
      actor,
      now,
      action: 'deployment.rollback',
      rollbackOf: current.id,
      live: { buildId },
    });
    const live = await readLive(tx, current.environmentId);
    const targets: LiveTarget[] = [];
    for (const [itemId, entry] of restored)
      targets.push({ itemId, type: entry.type, version: entry.version, hash: entry.hash });
    for (const itemId of live.keys())
      if (!restored.has(itemId)) targets.push({ itemId, version: null, hash: null });
    const { revision } = await applyLiveChanges(tx, {
      envId: current.environmentId,
      targets,
      cause: 'rollback',
      actor,
      at: now,
      deploymentId: deployment.id,
      releaseId: target.id,
      buildId,
      serveBuildId: buildId,
    });
    const head = await getLiveHead(tx, current.environmentId);
    await tx.updateNode(deployment.id, {
      props: { ...deploymentNode(deployment).props, liveRevision: revision?.seq ?? head.seq },
    });
    const superseded: Deployment = {
      ...fresh,
      status: 'superseded',
      supersededAt: now.toISOString(),
      supersededBy: deployment.id,
    };
    const node = await tx.getNode(current.id);
    await tx.updateNode(current.id, { props: { ...node?.props, ...deploymentNode(superseded).props } });
    return deployment;
  });
}

/** A page of deployments, newest first, with the count of all that match. */
export async function listDeployments(
  reader: GraphReader,
  { envId, limit, offset = 0 }: { envId?: string; limit: number; offset?: number },
): Promise<{ items: Deployment[]; total: number }> {
  const page = await reader.findNodes({
    label: DEPLOYMENT_LABEL,
    where: envId ? [{ prop: 'environmentId', op: 'eq', value: envId }] : [],
    orderBy: [
      { prop: 'createdAt', direction: 'desc' },
      { prop: 'validFrom', direction: 'desc' },
    ],
    limit,
    offset,
  });
  return { items: page.nodes.map(toDeployment), total: page.total };
}

/** A page of the pending deployments whose validFrom is after `now`, soonest first, with their count. */
export async function deploymentQueue(
  reader: GraphReader,
  { envId, limit, offset = 0, now }: { envId?: string; limit: number; offset?: number; now: Date },
): Promise<{ items: Deployment[]; total: number }> {
  const where: PropFilter[] = [
    { prop: 'status', op: 'eq', value: 'pending' },
    { prop: 'validFrom', op: 'gt', value: now.toISOString() },
  ];
  if (envId) where.push({ prop: 'environmentId', op: 'eq', value: envId });
  const page = await reader.findNodes({
    label: DEPLOYMENT_LABEL,
    where,
    orderBy: [{ prop: 'validFrom' }],
    limit,
    offset,
  });
  return { items: page.nodes.map(toDeployment), total: page.total };
}

/** Pending deployments whose validFrom has come (at or before `now`) and that nobody is working on, oldest first. */
export async function dueDeployments(reader: GraphReader, { now, limit }: { now: Date; limit: number }) {
  const page = await reader.findNodes({
    label: DEPLOYMENT_LABEL,
    where: [
      { prop: 'status', op: 'eq', value: 'pending' },
      { prop: 'validFrom', op: 'lte', value: now.toISOString() },
    ],
    orderBy: [{ prop: 'validFrom' }],
    limit,
  });
  return page.nodes.filter((node) => !isClaimed(node, now)).map(toDeployment);
}

/** The pending deployments of the site not yet due, soonest first (the ones to build ahead). */
export async function upcomingDeployments(
  reader: GraphReader,
  { now, limit }: { now: Date; limit: number },
): Promise<Array<{ deployment: Deployment; node: GraphNode }>> {
  const page = await reader.findNodes({
    label: DEPLOYMENT_LABEL,
    where: [
      { prop: 'status', op: 'eq', value: 'pending' },
      { prop: 'validFrom', op: 'gt', value: now.toISOString() },
    ],
    orderBy: [{ prop: 'validFrom' }],
    limit,
  });
  return page.nodes.map((node) => ({ deployment: toDeployment(node), node }));
}

function isClaimed(node: GraphNode, now: Date): boolean {
  const until = node.props.claimUntil;
  return typeof until === 'string' && Date.parse(until) > now.getTime();
}

/**
 * Claims a pending deployment for `by` for `leaseMs` (compare-and-set): null when it is not
 * pending or someone else's claim has not expired. A process that stops while holding a claim
 * (kill -9 during the build) leaves it to expire; the deployment is then due again.
 */
export async function claimDeployment({
  graph,
  id,
  by,
  now,
  leaseMs,
}: {
  graph: Graph;
  id: string;
  by: string;
  now: Date;
  leaseMs: number;
}): Promise<Deployment | null> {
  return graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node?.labels.includes(DEPLOYMENT_LABEL) || node.props.status !== 'pending') return null;
    if (isClaimed(node, now) && node.props.claimedBy !== by) return null;
    const claimUntil = new Date(now.getTime() + leaseMs).toISOString();
    await tx.updateNode(id, { props: { ...node.props, claimedBy: by, claimUntil } });
    return toDeployment(node);
  });
}

/** Gives a claim back (the deployment stays pending). */
export async function releaseClaim(graph: Graph, id: string, by: string): Promise<void> {
  await graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node || node.props.claimedBy !== by) return;
    await tx.updateNode(id, { props: { ...node.props, claimedBy: null, claimUntil: null } });
  });
}

/**
 * Makes a pending deployment live, with a compare-and-set inside one transaction: only when
 * it is still `pending` (and not claimed by another process) does it become `deployed`, served
 * by `buildId`, with its release's pinned versions put live in the environment (one live
 * revision) and its release `deployed`. Returns null when another scheduler or process won.
 * The caller switches the served pointer to `buildId` after this commits.
 */
export async function goLive({
  graph,
  id,
  buildId,
  by,
  now,
  actor = 'system',
}: {
  graph: Graph;
  id: string;
  buildId: string;
  by: string;
  now: Date;
  actor?: string;
}): Promise<{ deployment: Deployment; release: Release } | null> {
  return graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node?.labels.includes(DEPLOYMENT_LABEL) || node.props.status !== 'pending') return null;
    if (isClaimed(node, now) && node.props.claimedBy !== by) return null;
    const deployment = toDeployment(node);
    if (Date.parse(deployment.validFrom) > now.getTime()) return null;
    const release = await getRelease(tx, deployment.releaseId);
    const { revision } = await applyLiveChanges(tx, {
      envId: deployment.environmentId,
      targets: releaseTargets(release),
      cause: 'deployment',
      actor,
      at: now,
      deploymentId: id,
      releaseId: release.id,
      buildId,
      serveBuildId: buildId,
    });
    const head = await getLiveHead(tx, deployment.environmentId);
    const live: Deployment = {
      ...deployment,
      status: 'deployed',
      deployedAt: now.toISOString(),
      buildId,
      error: null,
    };
    await tx.updateNode(id, {
      props: {
        ...node.props,
        ...deploymentNode(live).props,
        claimedBy: null,
        claimUntil: null,
        liveRevision: revision?.seq ?? head.seq,
      },
    });
    if (release.state !== 'deployed') {
      await tx.updateNode(release.id, {
        props: releaseProps({ ...release, state: 'deployed', updatedAt: now.toISOString() }),
      });
    }
    await tx.appendAudit({
      actor,
      action: 'deployment.live',
      target: id,
      data: { releaseId: release.id, environmentId: deployment.environmentId, buildId },
    });
    return { deployment: live, release: { ...release, state: 'deployed' } };
  });
}

/** Marks a pending deployment `failed` with the reason (the live site is left as it was). */
export async function failDeployment({
  graph,
  id,
  error,
  now,
  buildId,
}: {
  graph: Graph;
  id: string;
  error: string;
  now: Date;
  buildId?: string | null;
}): Promise<Deployment | null> {
  return graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (node?.props.status !== 'pending') return null;
    const failed: Deployment = {
      ...toDeployment(node),
      status: 'failed',
      error,
      failedAt: now.toISOString(),
    };
    await tx.updateNode(id, {
      props: {
        ...node.props,
        ...deploymentNode(failed).props,
        claimedBy: null,
        claimUntil: null,
        failedBuildId: buildId ?? null,
      },
    });
    await tx.appendAudit({
      actor: 'system',
      action: 'deployment.failed',
      target: id,
      data: {
        releaseId: failed.releaseId,
        environmentId: failed.environmentId,
        error,
        buildId: buildId ?? null,
      },
    });
    return failed;
  });
}

/**
 * Puts a failed deployment back to `pending` so it is tried again (409 unless it failed; 400
 * `unknown_environment` when its environment was deleted since).
 */
export async function retryDeployment({
  graph,
  id,
  actor,
}: {
  graph: Graph;
  id: string;
  actor: string;
}): Promise<Deployment> {
  return graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node?.labels.includes(DEPLOYMENT_LABEL)) {
      throw TrellisError.of('not_found', { resource: `Deployment \`${id}\`` });
    }
    const deployment = toDeployment(node);
    if (deployment.status !== 'failed') {
      throw TrellisError.of('conflict', {
        detail: `Deployment \`${id}\` is ${deployment.status}; only a failed deployment can be retried.`,
      });
    }
    await getEnvironment(tx, deployment.environmentId);
    const pending: Deployment = {
      ...deployment,
      status: 'pending',
      error: null,
      failedAt: null,
      prebuiltBuildId: null,
    };
    await tx.updateNode(id, { props: { ...node.props, ...deploymentNode(pending).props } });
    await tx.appendAudit({
      actor,
      action: 'deployment.retry',
      target: id,
      data: { releaseId: deployment.releaseId, environmentId: deployment.environmentId },
    });
    return pending;
  });
}

/** Records the build made ahead for a pending deployment (ignored once it is no longer pending). */
export async function recordPrebuild({
  graph,
  id,
  buildId,
  fingerprint,
  error,
}: {
  graph: Graph;
  id: string;
  buildId: string | null;
  fingerprint: string | null;
  error?: string | null;
}): Promise<void> {
  await graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (node?.props.status !== 'pending') return;
    await tx.updateNode(id, {
      props: {
        ...node.props,
        prebuiltBuildId: buildId,
        prebuildFingerprint: fingerprint,
        error: error ?? null,
      },
    });
  });
}

/**
 * The live state of an environment at `at`. In the past: read back from its live revisions.
 * Now: the live state as stored. In the future: the live state now with every pending
 * deployment due by `at` applied in validFrom order (`pending`), what the site will serve
 * then unless something else changes first.
 */
export async function liveStateAt(
  reader: GraphReader,
  { envId, at, now }: { envId: string; at: Date; now: Date },
): Promise<{ seq: number; live: Map<string, LiveEntry>; pending: Deployment[] }> {
  if (at.getTime() < now.getTime()) return { ...(await liveAt(reader, envId, at)), pending: [] };
  const head = await getLiveHead(reader, envId);
  let live = await readLive(reader, envId);
  const page = await reader.findNodes({
    label: DEPLOYMENT_LABEL,
    where: [
      { prop: 'environmentId', op: 'eq', value: envId },
      { prop: 'status', op: 'eq', value: 'pending' },
      { prop: 'validFrom', op: 'lte', value: at.toISOString() },
    ],
    orderBy: [{ prop: 'validFrom' }, { prop: 'createdAt' }],
  });
  const pending = page.nodes.map(toDeployment);
  for (const deployment of pending) {
    const release = await getRelease(reader, deployment.releaseId);
    live = withRelease(live, release, new Date(deployment.validFrom), deployment.id);
  }
  return { seq: head.seq, live, pending };
}

/**
 * What was (or will be) live in an environment at `at`: the deployment live then (for a
 * future time, the last pending one due by then), its release and includes, and every live
 * item. 404 `not_found` when nothing is live then.
 */
export async function replay(
  reader: GraphReader,
  { envId, at, now }: { envId: string; at: Date; now: Date },
): Promise<ReplayResponse> {
  const state = await liveStateAt(reader, { envId, at, now });
  let deployment: Deployment | null = state.pending.at(-1) ?? null;
  if (!deployment) {
    const page = await reader.findNodes({
      label: DEPLOYMENT_LABEL,
      where: [{ prop: 'environmentId', op: 'eq', value: envId }],
    });
    deployment = liveDeploymentAt({
      deployments: page.nodes.map(toDeployment).filter((d) => d.status !== 'pending'),
      at: at.getTime() <= now.getTime() ? at : now,
    });
  }
  if (!deployment && state.live.size === 0) {
    throw TrellisError.of('not_found', {
      resource: `A deployment live in ${envId} at ${at.toISOString()}`,
    });
  }
  const release = deployment ? await getRelease(reader, deployment.releaseId) : null;
  return {
    deployment,
    release,
    includes: release?.includes ?? [],
    atTime: at.toISOString(),
    future: at.getTime() > now.getTime(),
    live: [...state.live.values()].sort((a, b) => a.itemId.localeCompare(b.itemId)),
  };
}

/**
 * Schedules one deployment per release at the planned timestamps, atomically: every release
 * must exist (404), be approved or deployed (409) and pass its review gate (409), or nothing
 * is written.
 */
export async function scheduleDrip({
  graph,
  environmentId,
  pairs,
  actor,
  now,
}: {
  graph: Graph;
  environmentId: string;
  pairs: Array<{ releaseId: string; validFrom: string }>;
  actor: string;
  now: Date;
}): Promise<{ deployments: Deployment[]; environment: Environment }> {
  return graph.transaction(async (tx) => {
    const environment = await getEnvironment(tx, environmentId);
    assertNotDev(environment);
    const releases: Release[] = [];
    for (const pair of pairs) {
      const release = await getRelease(tx, pair.releaseId);
      await assertDeployable({ tx, release, environment, skipReviewGate: false });
      releases.push(release);
    }
    const deployments: Deployment[] = [];
    for (const [index, pair] of pairs.entries()) {
      // Re-read: an earlier deployment of the loop may have changed the release's state.
      const release = index === 0 ? (releases[0] as Release) : await getRelease(tx, pair.releaseId);
      deployments.push(
        await writeDeployment({
          tx,
          release,
          environmentId: environment.id,
          validFrom: isoTime(pair.validFrom),
          intent: 'drip',
          actor,
          now,
          action: 'release.drip',
        }),
      );
    }
    return { deployments, environment };
  });
}
