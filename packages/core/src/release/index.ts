export { type DripPatternName, type DripPlanInput, planDrip } from './drip-schedule';
export { type DeploymentTimelineEntry, liveDeploymentAt } from './live-deployment';
export { assertReleaseTransition, isDeployableState, type ReleaseStateName } from './release-transition';
export {
  checkReviewGate,
  dependencyHash,
  type IncludeFacts,
  type ItemHead,
  type ReviewGateVerdict,
  reviewName,
  runReviews,
} from './review-gate';
export { type RandomSource, randomInt, seededRandom } from './seeded-random';
