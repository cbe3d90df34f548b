import type { AddIncludeBody, Deployment, DeployReleaseBody, Release } from '@trelliscms/core';
import type { z } from 'zod';
import { type NoRollbackReason, pickRollbackTarget, type RollbackTarget } from '../helpers/rollback-target';
import { sleep } from '../helpers/sleep';
import type { CallOptions } from '../http/transport';
import type { ContentApi } from './content';
import type { ReleaseCalls } from './releases';

/** Options of {@link ReleaseHelpers.includeItem}. */
export interface IncludeItemOptions extends CallOptions {
  /** The version to include. Default: the item's current (head) version. */
  version?: number;
}

/** Options of {@link ReleaseHelpers.submitAndApprove}. */
export interface SubmitAndApproveOptions extends CallOptions {
  /** Recorded with both transitions. */
  comment?: string;
}

/** Options of {@link ReleaseHelpers.waitForDeployment} and {@link ReleaseHelpers.deployAndWait}. */
export interface DeploymentWaitOptions extends CallOptions {
  /** Milliseconds between two reads of the deployment. Default 1000. */
  pollIntervalMs?: number;
  /** Give up (rejecting with a `DeploymentWaitTimeoutError`) after this many ms. Default: wait for ever. */
  maxWaitMs?: number;
  /** Called with every read of the deployment, pending or final. */
  onStatus?: (deployment: Deployment) => void;
}

/** What {@link ReleaseHelpers.rollbackEnvironment} did. */
export interface EnvironmentRollback {
  /** The deployment that was live, as it was before the rollback (now `superseded`). */
  rolledBack: Deployment;
  /** The new, live deployment of the earlier release. */
  deployment: Deployment;
}

/** {@link ReleaseHelpers.waitForDeployment} ran past `maxWaitMs`; the deployment is still `pending`. */
export class DeploymentWaitTimeoutError extends Error {
  override readonly name = 'DeploymentWaitTimeoutError';
  constructor(
    readonly deploymentId: string,
    readonly waitedMs: number,
  ) {
    super(`Deployment ${deploymentId} was still pending after ${waitedMs} ms`);
  }
}

/**
 * An environment has nothing to roll back to: nothing is live there (`nothing_live`), or every
 * deployment live there before the current one was of the same release (`no_earlier_release`).
 */
export class NoRollbackTargetError extends Error {
  override readonly name = 'NoRollbackTargetError';
  constructor(
    readonly envId: string,
    readonly reason: NoRollbackReason,
  ) {
    super(
      reason === 'nothing_live'
        ? `Nothing is live in ${envId}, so there is nothing to roll back.`
        : `No release other than the live one was ever live in ${envId}, so there is nothing to roll back to.`,
    );
  }
}

/** Reads kept for a rollback's history: the API's largest page of deployments. */
const ROLLBACK_HISTORY = 500;

/**
 * The releases helpers: each chains a few of the one-route calls so integrators need not
 * (read an item's version and hash before including it, submit and approve, follow a
 * deployment, roll an environment back without looking up ids).
 */
export function createReleaseHelpers(calls: ReleaseCalls, content: ContentApi) {
  const helpers = {
    /**
     * Adds content item `id` (a full id, `<type>:<slug>`) to draft release `releaseId` at its
     * current version, or at `version`: reads that version's number and hash from the server
     * and POSTs the include. Resolves with the release.
     */
    includeItem: async (
      releaseId: string,
      type: string,
      id: string,
      options: IncludeItemOptions = {},
    ): Promise<Release> => {
      const { version, ...callOptions } = options;
      const include = await includeOf({ content, type, id, version, options: callOptions });
      return calls.addInclude(releaseId, include, callOptions);
    },
    /** Moves a release to `pending` (the reviews run) and then to `approved`; resolves with it approved. */
    submitAndApprove: async (id: string, options: SubmitAndApproveOptions = {}): Promise<Release> => {
      const { comment, ...callOptions } = options;
      await calls.transition(id, { state: 'pending', comment }, callOptions);
      return calls.transition(id, { state: 'approved', comment }, callOptions);
    },
    /**
     * Polls GET /api/releases/deployments/{id} until the deployment is no longer `pending`, and
     * resolves with it: `deployed`, `failed` (see its `error`) or `superseded`. It does not
     * reject on `failed`.
     */
    waitForDeployment: async (id: string, options: DeploymentWaitOptions = {}): Promise<Deployment> => {
      const { pollIntervalMs = 1000, maxWaitMs, onStatus, ...callOptions } = options;
      const started = Date.now();
      for (;;) {
        const deployment = await calls.getDeployment(id, callOptions);
        onStatus?.(deployment);
        if (deployment.status !== 'pending') return deployment;
        const waited = Date.now() - started;
        if (maxWaitMs !== undefined && waited >= maxWaitMs) throw new DeploymentWaitTimeoutError(id, waited);
        await sleep(pollIntervalMs, callOptions.signal);
      }
    },
    /**
     * Deploys with `async` (the server answers `pending` at once) and follows the deployment to
     * its end with {@link waitForDeployment}. For a deployment due now; a future `validFrom`
     * would wait until then.
     */
    deployAndWait: async (
      releaseId: string,
      body: Omit<z.input<typeof DeployReleaseBody>, 'async'>,
      options: DeploymentWaitOptions = {},
    ): Promise<Deployment> => {
      const started = await calls.deploy(
        releaseId,
        { ...body, async: true },
        { signal: options.signal, timeoutMs: options.timeoutMs },
      );
      if (started.status !== 'pending') return started;
      return helpers.waitForDeployment(started.id, options);
    },
    /**
     * What rolling environment `envId` (`env:<name>`) back would do, from its recent
     * deployments: the live one and the latest one live before it with another release.
     * Rejects with a `NoRollbackTargetError` when there is none. Reads only.
     */
    rollbackTarget: async (envId: string, options: CallOptions = {}): Promise<RollbackTarget> => {
      const deployments = await calls.deployments({ envId, limit: ROLLBACK_HISTORY }, options);
      const picked = pickRollbackTarget(deployments, new Date());
      if ('reason' in picked) throw new NoRollbackTargetError(envId, picked.reason);
      return picked;
    },
    /**
     * Rolls environment `envId` back to the release live there before the current one
     * ({@link rollbackTarget}), through POST /api/releases/deployments/{id}/rollback.
     */
    rollbackEnvironment: async (envId: string, options: CallOptions = {}): Promise<EnvironmentRollback> => {
      const { live, target } = await helpers.rollbackTarget(envId, options);
      const deployment = await calls.rollbackDeployment(live.id, target.releaseId, options);
      return { rolledBack: live, deployment };
    },
  };
  return helpers;
}
export type ReleaseHelpers = ReturnType<typeof createReleaseHelpers>;

/** The include of one item version: `version`, or the item's head version. */
async function includeOf({
  content,
  type,
  id,
  version,
  options,
}: {
  content: ContentApi;
  type: string;
  id: string;
  version: number | undefined;
  options: CallOptions;
}): Promise<z.input<typeof AddIncludeBody>> {
  let number = version;
  if (number === undefined) {
    const item = await content.get(type, id, options);
    number = item.version;
  }
  // The version record gives the exact hash and time; the item's record may omit them.
  const recorded =
    number === undefined
      ? (await content.versions(type, id, options))[0]
      : await content.version(type, id, number, options);
  if (!recorded) throw new Error(`${id} has no recorded version to include`);
  return {
    kind: 'content',
    versionableId: recorded.itemId,
    version: recorded.version,
    hash: recorded.hash,
    at: recorded.at,
  };
}
