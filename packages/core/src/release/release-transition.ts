import { TrellisError } from '../errors';

export type ReleaseStateName = 'draft' | 'pending' | 'approved' | 'deployed';

/**
 * The release transitions POST /releases/{id}/transition allows (docs/api-spec.md §3):
 * - `draft` -> `pending`: submit for review (reviews run);
 * - any -> `pending`: force a re-review (reviews run again);
 * - `pending` -> `approved`;
 * - `pending` -> `draft`: send back for changes (includes can be added again).
 * `deployed` is reached only through a deploy. Everything else is a 409 `conflict`.
 */
export function assertReleaseTransition({ from, to }: { from: ReleaseStateName; to: ReleaseStateName }): {
  runsReviews: boolean;
} {
  if (to === 'pending') return { runsReviews: true };
  if (from === 'pending' && (to === 'approved' || to === 'draft')) return { runsReviews: false };
  const how =
    to === 'deployed'
      ? 'a release becomes deployed through POST /api/releases/{id}/deploy'
      : to === 'approved'
        ? 'only a pending release can be approved; move it to pending first'
        : 'only a pending release can go back to draft';
  throw TrellisError.of('conflict', { detail: `A release cannot go from ${from} to ${to}: ${how}.` });
}

/** Whether a release in `state` can be deployed (or drip-scheduled). */
export function isDeployableState(state: ReleaseStateName): boolean {
  return state === 'approved' || state === 'deployed';
}
