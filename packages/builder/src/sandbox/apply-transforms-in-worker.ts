import {
  buildTransforms,
  DEFAULT_TRANSFORM_BUDGET_MS,
  type TransformLimits,
  type TransformOutcome,
} from '../render/apply-transforms';
import type { Snapshot } from '../snapshot/types';
import { LiquidSandbox, SandboxStoppedError } from './liquid-sandbox';

/**
 * Time the worker is given beyond the transforms' budget (reading the snapshot, starting up)
 * before it is terminated: the budget itself is enforced inside, by liquidjs's render limit.
 */
const GRACE_MS = 10_000;

/**
 * `applyTransforms` in a worker thread (a {@link LiquidSandbox}): the thread that builds, a
 * server's request thread for one, stays free however long the site's transforms run. Nothing
 * to do (no build transforms) costs no worker. The worker's heap is about 8 times the
 * snapshot's JSON size (256 MB to 4 GB); `sandboxFor` gives a kept sandbox for that heap size
 * (a render pool's, warm between builds), else one is started and ended for the call. A
 * worker that runs past the transforms' budget (plus a grace for loading the snapshot), out of
 * memory or crashes is terminated, and the outcome says the transforms were stopped (the
 * snapshot unchanged).
 */
export async function applyTransformsInWorker(
  params: { snapshot: Snapshot; env: string } & TransformLimits,
  sandboxFor?: (memoryMb: number) => LiquidSandbox,
): Promise<TransformOutcome> {
  const { snapshot, env, ...limits } = params;
  if (buildTransforms(snapshot).length === 0) return { snapshot, errors: [], stopped: null, refusals: [] };
  const snapshotJson = JSON.stringify(snapshot);
  const memoryMb = Math.min(4096, Math.max(256, Math.ceil((snapshotJson.length / 1e6) * 8)));
  const sandbox = sandboxFor?.(memoryMb) ?? new LiquidSandbox({ memoryMb });
  try {
    const result = await sandbox.run(
      { type: 'transforms', snapshotJson, env, limits },
      { timeoutMs: (limits.transformBudgetMs ?? DEFAULT_TRANSFORM_BUDGET_MS) + GRACE_MS },
    );
    const changed = new Map(result.changed);
    const items = snapshot.items.map((item, index) => {
      const fields = changed.get(index);
      return fields === undefined ? item : { ...item, fields };
    });
    return {
      snapshot: { ...snapshot, items },
      errors: result.errors,
      stopped: result.stopped,
      refusals: result.refusals,
    };
  } catch (error) {
    if (!(error instanceof SandboxStoppedError)) throw error;
    return { snapshot, errors: [], stopped: `the transforms were stopped: ${error.message}`, refusals: [] };
  } finally {
    if (!sandboxFor) await sandbox.close();
  }
}
