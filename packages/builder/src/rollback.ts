import { TrellisError } from '@trelliscms/core/build';
import type { ActivateResult, DeployTarget } from './deploy/types';

/**
 * Makes an earlier build live again on a target that keeps versions (one pointer switch).
 * Throws `build_version_not_found` (404) for an unknown build and `business_rule` (400) when the
 * target cannot roll back.
 */
export async function rollback(params: { target: DeployTarget; buildId: string }): Promise<ActivateResult> {
  const { target, buildId } = params;
  if (!target.capabilities.rollback || !target.rollback) {
    throw TrellisError.of('business_rule', { detail: `the ${target.name} deploy target cannot roll back` });
  }
  return target.rollback(buildId);
}

/**
 * Makes a committed version live in one atomic switch: typically one built ahead with
 * `build({activate: false})`. Throws `build_version_not_found` (404) for an unknown build and
 * `business_rule` (400) when the target keeps no versions to switch to.
 */
export async function activateVersion(params: {
  target: DeployTarget;
  buildId: string;
}): Promise<ActivateResult> {
  const { target, buildId } = params;
  if (!target.activate) {
    throw TrellisError.of('business_rule', {
      detail: `the ${target.name} deploy target keeps no versions to make live`,
    });
  }
  return target.activate(buildId);
}
