import { z } from 'zod';
import { DateTime, DeploymentId, EnvironmentId, queryLimit, queryOffset, ReleaseId } from './common';

/** Spec §2 Environment: where releases deploy (e.g. `env:dev`, `env:prod`), ordered by `order`. */
export const Environment = z
  .object({
    id: EnvironmentId,
    name: z.string(),
    order: z.number().int(),
    autoBuild: z.boolean(),
    requiresApproval: z.boolean(),
    publicUrlOverride: z.string().nullable().optional(),
  })
  .meta({ id: 'Environment' });
export type Environment = z.infer<typeof Environment>;

/** GET /api/releases/environments */
export const EnvironmentList = z.array(Environment).meta({ id: 'EnvironmentList' });
export type EnvironmentList = z.infer<typeof EnvironmentList>;

/**
 * PUT /api/releases/environments/{id}: creates or replaces the environment. `name` defaults to
 * the id's `<name>`, `order` to 0, the flags to false.
 */
export const UpsertEnvironmentBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    order: z.number().int().min(0).max(1000).default(0),
    autoBuild: z.boolean().default(false),
    requiresApproval: z.boolean().default(false),
    publicUrlOverride: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .optional(),
  })
  .meta({ id: 'UpsertEnvironmentBody' });
export type UpsertEnvironmentBody = z.infer<typeof UpsertEnvironmentBody>;

/** Path parameters of /api/releases/environments/{id}. */
export const EnvironmentParams = z.object({ id: EnvironmentId });
export type EnvironmentParams = z.infer<typeof EnvironmentParams>;

/** The states of a release (docs/api-spec.md §3): `draft` -> `pending` (in review) -> `approved` -> `deployed`. */
export const ReleaseState = z.enum(['draft', 'pending', 'approved', 'deployed']).meta({ id: 'ReleaseState' });
export type ReleaseState = z.infer<typeof ReleaseState>;

/** A release name: the `<name>` of `release:<name>`. */
export const ReleaseName = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must hold only letters, digits, ., _ and -');

/** Spec §2 Include: one exact version of a versionable item in a release. */
export const Include = z
  .object({
    /** What is versioned, e.g. `content` or `template`. */
    kind: z.string().min(1).max(64),
    /** The item's id, e.g. `movie:alien`. */
    versionableId: z.string().min(1).max(300),
    version: z.number().int().min(1),
    /** The content hash of that version (`sha256:<hex>`). */
    hash: z.string().min(1).max(200),
    /** When the version was taken. */
    at: DateTime,
  })
  .meta({ id: 'Include' });
export type Include = z.infer<typeof Include>;

/**
 * A review of a release. A `blocking` finding stops a deploy (409 `review_gate`), and so does
 * a `required` review that is `stale` (an included item changed since: its dependency hash
 * no longer matches).
 */
export const Review = z
  .object({
    name: z.string(),
    /** The included item this review depends on. */
    versionableId: z.string().optional(),
    required: z.boolean(),
    status: z.enum(['pending', 'passed', 'failed']),
    stale: z.boolean(),
    dependencyHash: z.string().optional(),
    findings: z.array(
      z.object({
        severity: z.enum(['info', 'warning', 'blocking']),
        message: z.string(),
        versionableId: z.string().optional(),
      }),
    ),
    reviewedAt: DateTime.nullable().optional(),
  })
  .meta({ id: 'Review' });
export type Review = z.infer<typeof Review>;

/** Spec §2 Release: an immutable bundle of item versions, with its state and reviews. */
export const Release = z
  .object({
    id: ReleaseId,
    name: z.string(),
    description: z.string().optional(),
    intent: z.string().optional(),
    derivedFromReleaseId: ReleaseId.nullable().optional(),
    state: ReleaseState,
    includes: z.array(Include),
    reviews: z.array(Review).optional(),
    createdAt: DateTime.optional(),
    createdBy: z.string().nullable().optional(),
    updatedAt: DateTime.optional(),
  })
  .meta({ id: 'Release' });
export type Release = z.infer<typeof Release>;

/** GET /api/releases */
export const ReleaseList = z.array(Release).meta({ id: 'ReleaseList' });
export type ReleaseList = z.infer<typeof ReleaseList>;

/** GET /api/releases query: `state` filter, `limit` default 50 (at most 500), `offset` default 0. */
export const ListReleasesQuery = z.object({
  state: ReleaseState.optional(),
  limit: queryLimit({ fallback: 50, max: 500 }),
  offset: queryOffset(),
});
export type ListReleasesQuery = z.infer<typeof ListReleasesQuery>;

/** POST /api/releases: a new release in state `draft`; its id is `release:<name>`. */
export const CreateReleaseBody = z
  .object({
    name: ReleaseName,
    description: z.string().max(2000).optional(),
    intent: z.string().max(2000).optional(),
    derivedFromReleaseId: ReleaseId.optional(),
    /** Each include's `at` defaults to now. */
    includes: z
      .array(Include.extend({ at: DateTime.optional() }))
      .max(10_000)
      .optional(),
  })
  .meta({ id: 'CreateReleaseBody' });
export type CreateReleaseBody = z.infer<typeof CreateReleaseBody>;

/** POST /api/releases/{id}/includes (draft releases only). `at` defaults to now. */
export const AddIncludeBody = Include.extend({ at: DateTime.optional() }).meta({ id: 'AddIncludeBody' });
export type AddIncludeBody = z.infer<typeof AddIncludeBody>;

/** POST /api/releases/{id}/transition: the state to move to (see the release state machine). */
export const ReleaseTransitionBody = z
  .object({ state: ReleaseState, comment: z.string().max(2000).optional() })
  .meta({ id: 'ReleaseTransitionBody' });
export type ReleaseTransitionBody = z.infer<typeof ReleaseTransitionBody>;

/** Path parameters of /api/releases/{id}/... */
export const ReleaseParams = z.object({ id: ReleaseId });
export type ReleaseParams = z.infer<typeof ReleaseParams>;

/**
 * The states of a deployment: `pending` until its validFrom and until the build that serves it
 * is live, then `deployed`; `superseded` once rolled back (or replaced by a rollback); `failed`
 * when its build failed (the previous site stays live; `error` says why; it can be retried).
 */
export const DeploymentStatus = z
  .enum(['pending', 'deployed', 'superseded', 'failed'])
  .meta({ id: 'DeploymentStatus' });
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

/** Spec §2 Deployment: release `releaseId` is live on `environmentId` from `validFrom`. */
export const Deployment = z
  .object({
    id: DeploymentId,
    status: DeploymentStatus,
    validFrom: DateTime,
    environmentId: EnvironmentId,
    releaseId: ReleaseId,
    intent: z.string().optional(),
    createdAt: DateTime.optional(),
    createdBy: z.string().nullable().optional(),
    deployedAt: DateTime.nullable().optional(),
    supersededAt: DateTime.nullable().optional(),
    /** The deployment that superseded this one (its rollback). */
    supersededBy: DeploymentId.nullable().optional(),
    /** For a rollback: the deployment it rolled back. */
    rollbackOf: DeploymentId.nullable().optional(),
    /** The audit record stamped on it. */
    auditSeq: z.number().int().nullable().optional(),
    /** The build that serves it: set when it went live (`GET /api/build/status/{buildId}`). */
    buildId: z.string().nullable().optional(),
    /** A pending deployment's build made ahead of its validFrom (not live yet), or null. */
    prebuiltBuildId: z.string().nullable().optional(),
    /** Why it failed (`failed`), or why its last prebuild failed (still `pending`). */
    error: z.string().nullable().optional(),
    failedAt: DateTime.nullable().optional(),
  })
  .meta({ id: 'Deployment' });
export type Deployment = z.infer<typeof Deployment>;

/** GET /api/releases/deployments and /api/releases/queue */
export const DeploymentList = z.array(Deployment).meta({ id: 'DeploymentList' });
export type DeploymentList = z.infer<typeof DeploymentList>;

/** GET /api/releases/deployments query: `limit` default 50 (at most 500), `offset` default 0. */
export const ListDeploymentsQuery = z.object({
  envId: EnvironmentId.optional(),
  limit: queryLimit({ fallback: 50, max: 500 }),
  offset: queryOffset(),
});
export type ListDeploymentsQuery = z.infer<typeof ListDeploymentsQuery>;

/**
 * GET /api/releases/queue query: future-dated pending deployments, `limit` default 100 (at
 * most 1000), `offset` default 0.
 */
export const DeploymentQueueQuery = z.object({
  envId: EnvironmentId.optional(),
  limit: queryLimit({ fallback: 100, max: 1000 }),
  offset: queryOffset(),
});
export type DeploymentQueueQuery = z.infer<typeof DeploymentQueueQuery>;

/**
 * POST /api/releases/{id}/deploy: `validFrom` defaults to now (a future one is fired by the
 * scheduler); `skipReviewGate` deploys despite review findings (admins only).
 */
export const DeployReleaseBody = z
  .object({
    environmentId: EnvironmentId,
    intent: z.string().max(2000).optional(),
    validFrom: DateTime.optional(),
    skipReviewGate: z.boolean().optional(),
    /**
     * For a deployment due now: answer at once with the `pending` deployment instead of
     * waiting for its build to go live (poll GET /api/releases/deployments/{id}).
     */
    async: z.boolean().optional(),
  })
  .meta({ id: 'DeployReleaseBody' });
export type DeployReleaseBody = z.infer<typeof DeployReleaseBody>;

/** Path parameters of /api/releases/deployments/{id}/rollback. */
export const DeploymentParams = z.object({ id: DeploymentId });
export type DeploymentParams = z.infer<typeof DeploymentParams>;

/** POST /api/releases/deployments/{id}/rollback */
export const RollbackDeploymentBody = z
  .object({ rollbackToReleaseId: ReleaseId })
  .meta({ id: 'RollbackDeploymentBody' });
export type RollbackDeploymentBody = z.infer<typeof RollbackDeploymentBody>;

/** How drip timestamps spread over the window. */
export const DripPattern = z.enum(['even', 'random', 'jittered']).meta({ id: 'DripPattern' });
export type DripPattern = z.infer<typeof DripPattern>;

const MAX_DRIP = 1000;

const dripShape = {
  /** How many timestamps to plan (without releases). */
  count: z.number().int().min(1).max(MAX_DRIP).optional(),
  /** The releases to schedule, one timestamp each, in this order. */
  releaseIds: z.array(ReleaseId).min(1).max(MAX_DRIP).optional(),
  windowStart: DateTime,
  windowEnd: DateTime,
  pattern: DripPattern.default('even'),
  /** For `jittered`: the most a timestamp moves from its even slot. */
  maxJitterMs: z.number().int().min(0).optional(),
  /** The least time between two timestamps. */
  minSpacingMs: z.number().int().min(0).optional(),
  /** Seed of the PRNG of `random` and `jittered`: the same seed gives the same schedule. */
  seed: z.union([z.number().int(), z.string().max(200)]).optional(),
};

type DripLike = { count?: number; releaseIds?: string[]; windowStart: string; windowEnd: string };

function checkDrip(body: DripLike, ctx: z.RefinementCtx): void {
  if ((body.count === undefined) === (body.releaseIds === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['count'], message: 'give either count or releaseIds' });
  }
  if (Date.parse(body.windowEnd) <= Date.parse(body.windowStart)) {
    ctx.addIssue({ code: 'custom', path: ['windowEnd'], message: 'windowEnd must be after windowStart' });
  }
  if (body.releaseIds && new Set(body.releaseIds).size !== body.releaseIds.length) {
    ctx.addIssue({ code: 'custom', path: ['releaseIds'], message: 'releaseIds must be distinct' });
  }
}

/** POST /api/releases/drip-preview: plans timestamps (and release pairs); writes nothing. */
export const DripPreviewBody = z.object(dripShape).superRefine(checkDrip).meta({ id: 'DripPreviewBody' });
export type DripPreviewBody = z.infer<typeof DripPreviewBody>;

/**
 * POST /api/releases/drip-schedule: the preview body plus `environmentId`; `releaseIds` is
 * required. Atomic: every release must be approved or deployed, or nothing is scheduled.
 */
export const DripScheduleBody = z
  .object({ ...dripShape, environmentId: EnvironmentId })
  .superRefine(checkDrip)
  .refine((body) => body.releaseIds !== undefined, {
    message: 'drip-schedule needs releaseIds',
    path: ['releaseIds'],
  })
  .meta({ id: 'DripScheduleBody' });
export type DripScheduleBody = z.infer<typeof DripScheduleBody>;

/** The planned timestamps, ascending. */
export const DripSchedule = z.object({ timestamps: z.array(DateTime) }).meta({ id: 'DripSchedule' });
export type DripSchedule = z.infer<typeof DripSchedule>;

/** The answer of drip-preview: the schedule and, with releaseIds, which release goes live when. */
export const DripPreviewResponse = z
  .object({
    schedule: DripSchedule,
    pairs: z.array(z.object({ releaseId: ReleaseId, validFrom: DateTime })).optional(),
  })
  .meta({ id: 'DripPreviewResponse' });
export type DripPreviewResponse = z.infer<typeof DripPreviewResponse>;

/** The answer of drip-schedule: the schedule and the pending deployments it created. */
export const DripScheduleResponse = z
  .object({ schedule: DripSchedule, deployments: z.array(Deployment) })
  .meta({ id: 'DripScheduleResponse' });
export type DripScheduleResponse = z.infer<typeof DripScheduleResponse>;

/** GET /api/releases/replay query: `atTime` defaults to now. */
export const ReplayQuery = z.object({
  envId: EnvironmentId,
  atTime: DateTime.optional(),
});
export type ReplayQuery = z.infer<typeof ReplayQuery>;

/**
 * One item live in an environment: the version of it the environment serves, and what put it
 * there (a publish, or a deployment of a release).
 */
export const LiveEntry = z
  .object({
    itemId: z.string(),
    type: z.string(),
    version: z.number().int().min(1),
    hash: z.string(),
    /** When this version went live there. */
    since: DateTime,
    /** `publish`, `deployment`, `rollback` or `import`. */
    cause: z.string(),
    deploymentId: DeploymentId.nullable(),
    releaseId: ReleaseId.nullable(),
  })
  .meta({ id: 'LiveEntry' });
export type LiveEntry = z.infer<typeof LiveEntry>;

/** What was live in an environment at a time (all null/empty when nothing was). */
export const ReplayResponse = z
  .object({
    deployment: Deployment.nullable(),
    release: Release.nullable(),
    includes: z.array(Include),
    /** The moment answered for. */
    atTime: DateTime.optional(),
    /** True when `atTime` is in the future: the answer counts pending deployments due by then. */
    future: z.boolean().optional(),
    /** Every item live in the environment at `atTime`, at its version (by item id). */
    live: z.array(LiveEntry).optional(),
  })
  .meta({ id: 'ReplayResponse' });
export type ReplayResponse = z.infer<typeof ReplayResponse>;

/** GET /api/releases/live query: the live state of an environment now, or at `atTime`. */
export const LiveStateQuery = z.object({
  envId: EnvironmentId,
  atTime: DateTime.optional(),
});
export type LiveStateQuery = z.infer<typeof LiveStateQuery>;

/** GET /api/releases/live: every item live in an environment, and the live revision it is at. */
export const LiveState = z
  .object({
    envId: EnvironmentId,
    atTime: DateTime,
    /** The number of changes of the environment's live state up to `atTime`. */
    revision: z.number().int().min(0),
    /** The build serving the environment now (only when `atTime` is now). */
    buildId: z.string().nullable(),
    items: z.array(LiveEntry),
  })
  .meta({ id: 'LiveState' });
export type LiveState = z.infer<typeof LiveState>;
