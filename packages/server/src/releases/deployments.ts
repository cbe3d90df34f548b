import {
  checkReviewGate,
  type Deployment,
  type DeployReleaseBody,
  type Environment,
  isDeployableState,
  liveDeploymentAt,
  type Release,
  type ReplayResponse,
  TrellisError,
} from '@trelliscms/core';
import type { Graph, GraphReader, GraphWriter, PropFilter } from '../engines/port';
import { getEnvironment } from './environments';
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

/** Writes a new deployment (audit-stamped); when it is live at once its release becomes deployed. */
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
}): Promise<Deployment> {
  const id = newDeploymentId(now);
  const isLive = Date.parse(validFrom) <= now.getTime();
  const audit = await tx.appendAudit({
    actor,
    action,
    target: id,
    data: { releaseId: release.id, environmentId, validFrom, status: isLive ? 'deployed' : 'pending' },
  });
  const deployment: Deployment = {
    id,
    status: isLive ? 'deployed' : 'pending',
    validFrom,
    environmentId,
    releaseId: release.id,
    intent,
    createdAt: now.toISOString(),
    createdBy: actor,
    deployedAt: isLive ? now.toISOString() : null,
    supersededAt: null,
    supersededBy: null,
    rollbackOf: rollbackOf ?? null,
    auditSeq: audit.seq,
  };
  await tx.createNode(deploymentNode(deployment));
  if (isLive && release.state !== 'deployed') {
    await tx.updateNode(release.id, {
      props: releaseProps({ ...release, state: 'deployed', updatedAt: now.toISOString() }),
    });
  }
  return deployment;
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

/**
 * Rolls a deployed deployment back: marks it superseded and creates a new live deployment of
 * `rollbackToReleaseId` (a release deployed to the same environment before), in one transaction.
 */
export async function rollbackDeployment({
  graph,
  deploymentId,
  rollbackToReleaseId,
  actor,
  now,
}: {
  graph: Graph;
  deploymentId: string;
  rollbackToReleaseId: string;
  actor: string;
  now: Date;
}): Promise<DeployOutcome> {
  return graph.transaction(async (tx) => {
    const current = await getDeployment(tx, deploymentId);
    if (current.status !== 'deployed') {
      throw TrellisError.of('conflict', {
        detail: `Deployment \`${deploymentId}\` is ${current.status}; only a deployed deployment can be rolled back.`,
      });
    }
    const target = await getRelease(tx, rollbackToReleaseId);
    if (target.id === current.releaseId) {
      throw TrellisError.of('business_rule', {
        detail: `Deployment \`${deploymentId}\` already points at ${target.id}; name an older release.`,
      });
    }
    const earlier = await tx.findNodes({
      label: DEPLOYMENT_LABEL,
      where: [
        { prop: 'environmentId', op: 'eq', value: current.environmentId },
        { prop: 'releaseId', op: 'eq', value: target.id },
        { prop: 'status', op: 'in', value: ['deployed', 'superseded'] },
      ],
      limit: 1,
    });
    if (earlier.total === 0) {
      throw TrellisError.of('business_rule', {
        detail: `${target.id} was never deployed to ${current.environmentId}; a rollback goes back to a release that was live there.`,
      });
    }
    const environment = await getEnvironment(tx, current.environmentId);
    const deployment = await writeDeployment({
      tx,
      release: target,
      environmentId: current.environmentId,
      validFrom: now.toISOString(),
      intent: `rollback of ${deploymentId}`,
      actor,
      now,
      action: 'deployment.rollback',
      rollbackOf: deploymentId,
    });
    const superseded: Deployment = {
      ...current,
      status: 'superseded',
      supersededAt: now.toISOString(),
      supersededBy: deployment.id,
    };
    await tx.updateNode(current.id, { props: deploymentNode(superseded).props });
    return { deployment, environment };
  });
}

/** Recent deployments, newest first. */
export async function listDeployments(
  reader: GraphReader,
  { envId, limit }: { envId?: string; limit: number },
): Promise<Deployment[]> {
  const page = await reader.findNodes({
    label: DEPLOYMENT_LABEL,
    where: envId ? [{ prop: 'environmentId', op: 'eq', value: envId }] : [],
    orderBy: [
      { prop: 'createdAt', direction: 'desc' },
      { prop: 'validFrom', direction: 'desc' },
    ],
    limit,
  });
  return page.nodes.map(toDeployment);
}

/** Pending deployments whose validFrom is after `now`, soonest first. */
export async function deploymentQueue(
  reader: GraphReader,
  { envId, limit, now }: { envId?: string; limit: number; now: Date },
): Promise<Deployment[]> {
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
  });
  return page.nodes.map(toDeployment);
}

/** Pending deployments whose validFrom has come (at or before `now`), oldest first. */
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
  return page.nodes.map(toDeployment);
}

/**
 * Fires one due deployment with a compare-and-set inside a transaction: only when it is
 * still `pending` (and due) does it become `deployed` (and its release deployed). Returns the
 * fired deployment, or null when another scheduler (or process) fired it first.
 */
export async function fireDeployment({
  graph,
  id,
  now,
}: {
  graph: Graph;
  id: string;
  now: Date;
}): Promise<Deployment | null> {
  return graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node) return null;
    if (node.props.status !== 'pending') return null;
    const deployment = toDeployment(node);
    if (Date.parse(deployment.validFrom) > now.getTime()) return null;
    const fired: Deployment = { ...deployment, status: 'deployed', deployedAt: now.toISOString() };
    await tx.updateNode(id, { props: deploymentNode(fired).props });
    const releaseNode = await tx.getNode(deployment.releaseId);
    if (releaseNode && releaseNode.props.state !== 'deployed') {
      await tx.updateNode(deployment.releaseId, {
        props: { ...releaseNode.props, state: 'deployed', updatedAt: now.toISOString() },
      });
    }
    await tx.appendAudit({
      actor: 'system',
      action: 'deployment.fire',
      target: id,
      data: { releaseId: deployment.releaseId, environmentId: deployment.environmentId },
    });
    return fired;
  });
}

/** What was live in an environment at `at`; 404 `not_found` when nothing was. */
export async function replay(
  reader: GraphReader,
  { envId, at }: { envId: string; at: Date },
): Promise<ReplayResponse> {
  const page = await reader.findNodes({
    label: DEPLOYMENT_LABEL,
    where: [
      { prop: 'environmentId', op: 'eq', value: envId },
      { prop: 'validFrom', op: 'lte', value: at.toISOString() },
    ],
  });
  const live = liveDeploymentAt({ deployments: page.nodes.map(toDeployment), at });
  if (!live) {
    throw TrellisError.of('not_found', { resource: `A deployment live in ${envId} at ${at.toISOString()}` });
  }
  const release = await getRelease(reader, live.releaseId);
  return { deployment: live, release, includes: release.includes };
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
