import { z } from 'zod';
import { BUILD_MODES } from '../publishing/build-modes';
import { DateTime, QueryFlag, queryLimit, queryOffset } from './common';

/**
 * The mode a build is asked for: `full` rebuilds every page; `incremental` (default) only
 * impacted artifacts; `auto` picks by change surface; `validate` renders in memory, deploys
 * nothing and records no BuildEvent.
 */
export const BuildMode = z.enum(BUILD_MODES).meta({ id: 'BuildMode' });
export type BuildMode = z.infer<typeof BuildMode>;

/** The mode a build ran in (`manual`: a legacy rollback or operator build). */
export const BuildResultMode = z
  .enum(['full', 'incremental', 'auto', 'manual', 'validate'])
  .meta({ id: 'BuildResultMode' });
export type BuildResultMode = z.infer<typeof BuildResultMode>;

/** The state of a build: `running` until it ends with `ok` or `error`. */
export const BuildStatusValue = z.enum(['running', 'ok', 'error']).meta({ id: 'BuildStatusValue' });
export type BuildStatusValue = z.infer<typeof BuildStatusValue>;

/** An environment name such as `dev` or `prod` (or its id `env:<name>`). */
export const EnvName = z
  .string()
  .min(1)
  .max(72)
  .regex(/^(env:)?[a-z0-9][a-z0-9_-]*$/, 'must be an environment name such as prod');

/** A post-deploy probe of the public URL. */
export const ServeCheck = z
  .object({
    ok: z.boolean(),
    status: z.number().int(),
    durationMs: z.number().int().min(0),
    url: z.string(),
    error: z.string().nullable().optional(),
  })
  .meta({ id: 'ServeCheck' });
export type ServeCheck = z.infer<typeof ServeCheck>;

/** What a deploy did: where the files went and how many. */
export const DeployResult = z
  .object({
    ok: z.boolean(),
    bucket: z.string(),
    keyPrefix: z.string(),
    publicUrl: z.string().nullable(),
    filesUploaded: z.number().int().min(0),
    filesDeleted: z.number().int().min(0),
    bytes: z.number().int().min(0),
    durationMs: z.number().int().min(0),
    serveCheck: ServeCheck.nullable(),
  })
  .meta({ id: 'DeployResult' });
export type DeployResult = z.infer<typeof DeployResult>;

/** A transform that failed on one item during a build. */
export const TransformError = z
  .object({ contentId: z.string(), transform: z.string(), error: z.string() })
  .meta({ id: 'TransformError' });
export type TransformError = z.infer<typeof TransformError>;

/**
 * A problem a build reports without failing (or, in `errors`, one it failed on): `code`
 * (`undefined_variable`, `route_placeholder_missing`, `template_missing`, ...), its message,
 * and where: the page key, the template, its line and the variable.
 */
export const BuildIssue = z
  .object({
    code: z.string(),
    message: z.string(),
    key: z.string().optional(),
    path: z.string().optional(),
    template: z.string().optional(),
    line: z.number().int().optional(),
    variable: z.string().optional(),
  })
  .meta({ id: 'BuildIssue' });
export type BuildIssue = z.infer<typeof BuildIssue>;

/**
 * Why pages were rendered, counted: `full` (a full build), `new`, `moved`, `template-changed`,
 * `item-changed` (an item the page read changed), `query-changed` (the result of a
 * `{% list %}`, `{% traverse %}` or `{% similar %}` it ran changed) and `collection:<name>`
 * (a site collection it read changed).
 */
export const RenderReasons = z.record(z.string(), z.number().int().min(0)).meta({ id: 'RenderReasons' });
export type RenderReasons = z.infer<typeof RenderReasons>;

/**
 * Spec §2 BuildResult. `deploy` is null for a `validate` build (which lists its artifact
 * paths in `artifactPaths` instead). `status`, `envId` and the times are set by the server.
 */
export const BuildResult = z
  .object({
    ok: z.boolean(),
    buildId: z.string(),
    mode: BuildResultMode,
    artifacts: z.number().int().min(0),
    durationMs: z.number().int().min(0),
    transformErrors: z.array(TransformError),
    deploy: DeployResult.nullable(),
    status: BuildStatusValue.optional(),
    envId: z.string().optional(),
    dryRun: z.boolean().optional(),
    artifactPaths: z.array(z.string()).optional(),
    error: z.string().nullable().optional(),
    startedAt: DateTime.optional(),
    finishedAt: DateTime.nullable().optional(),
    /** An `asOf` preview build: the time it shows and where it is served. */
    asOf: DateTime.optional(),
    previewUrl: z.string().optional(),
    /** Pages this build rendered (the others were carried over unchanged). */
    rendered: z.number().int().min(0).optional(),
    /** Pages carried over unchanged from the previous build. */
    carried: z.number().int().min(0).optional(),
    /** Why the rendered pages were rendered, counted by reason. */
    reasons: RenderReasons.optional(),
    /**
     * What the build noticed but did not fail for (at most 200), e.g. `public_url_missing`, or
     * `undefined_variable` in a validate build.
     */
    warnings: z.array(BuildIssue).optional(),
  })
  .meta({ id: 'BuildResult' });
export type BuildResult = z.infer<typeof BuildResult>;

/** Where a running build is: see {@link BuildStatus}'s `progress`. */
export const BuildProgress = z
  .object({
    phase: z.enum(['queued', 'snapshot', 'plan', 'render', 'emit', 'deploy']),
    done: z.number().int().min(0),
    total: z.number().int().min(0),
    at: DateTime,
  })
  .meta({ id: 'BuildProgress' });
export type BuildProgress = z.infer<typeof BuildProgress>;

/**
 * GET /api/build/status/{buildId}, /build/last and /build/history entries: a build that may
 * still run. While `running` only the id fields are certain; at the end it carries the final
 * artifact and deploy counts of a BuildResult.
 */
export const BuildStatus = z
  .object({
    ok: z.boolean(),
    buildId: z.string(),
    envId: z.string(),
    status: BuildStatusValue,
    mode: BuildResultMode.optional(),
    artifacts: z.number().int().min(0).optional(),
    durationMs: z.number().int().min(0).optional(),
    transformErrors: z.array(TransformError).optional(),
    /** What the build noticed but did not fail for (see BuildResult). */
    warnings: z.array(BuildIssue).optional(),
    deploy: DeployResult.nullable().optional(),
    error: z.string().nullable().optional(),
    startedAt: DateTime.optional(),
    finishedAt: DateTime.nullable().optional(),
    /** True for the build the environment serves now (its pointer), in /build/last and /build/history. */
    live: z.boolean().optional(),
    /** What the build was for: `build` (POST /build), `deployment`, `prebuild` (a scheduled deployment, not live until its time) or `preview`. */
    purpose: z.enum(['build', 'deployment', 'prebuild', 'preview']).optional(),
    deploymentId: z.string().nullable().optional(),
    asOf: DateTime.nullable().optional(),
    previewUrl: z.string().nullable().optional(),
    /** At the end: pages rendered, pages carried over, and why they were rendered (as in BuildResult). */
    rendered: z.number().int().min(0).optional(),
    carried: z.number().int().min(0).optional(),
    reasons: RenderReasons.optional(),
    /**
     * While `running`, on the server running it: the phase (`queued` until it starts, then
     * `snapshot`, `plan`, `render`, `emit`, `deploy`) with its counts (pages rendered of those to
     * render), and when it last moved.
     */
    progress: BuildProgress.nullable().optional(),
    /** Someone asked to stop it (POST /api/build/cancel/{buildId}); it ends `error`, `cancelled: true`. */
    cancelRequested: z.boolean().optional(),
    /** It was stopped on request: nothing of it was deployed. */
    cancelled: z.boolean().optional(),
  })
  .meta({ id: 'BuildStatus' });
export type BuildStatus = z.infer<typeof BuildStatus>;

/** POST /api/build query: `env` overrides the body's; `async` and `dryRun` are `0`/`1` flags. */
export const BuildQuery = z.object({
  env: EnvName.optional(),
  async: QueryFlag.optional(),
  dryRun: QueryFlag.optional(),
});
export type BuildQuery = z.infer<typeof BuildQuery>;

/**
 * What a build emits, by channel: `pages` (item pages, routes and views), `feeds` (routes and
 * views whose path ends in `.xml`, `.rss`, `.atom` or `.json`, e.g. `/feed.xml`), `sitemap`
 * (`sitemap.xml`) and `search` (the search index under `search/`).
 */
export const OutputChannel = z.enum(['pages', 'feeds', 'sitemap', 'search']).meta({ id: 'OutputChannel' });
export type OutputChannel = z.infer<typeof OutputChannel>;

/**
 * POST /api/build body (optional: routes take `BuildBody.optional()`). `outputChannels`
 * names the outputs the build emits ({@link OutputChannel}); absent: all. The built version
 * holds only those (a build without `sitemap` has no `sitemap.xml`).
 */
export const BuildBody = z
  .object({
    env: EnvName.optional(),
    mode: BuildMode.optional(),
    async: z.boolean().optional(),
    outputChannels: z.array(OutputChannel).min(1).max(4).optional(),
    /**
     * A preview of the environment as it was, or will be, at this time (past or future:
     * pending deployments due by then are applied). Built into a preview folder served at
     * `/previews/<site slug>/<previewId>/`, never made live.
     */
    asOf: DateTime.optional(),
  })
  .meta({ id: 'BuildBody' });
export type BuildBody = z.infer<typeof BuildBody>;

/** The 202 answer of an async build: poll `statusUrl`. */
export const BuildAccepted = z
  .object({
    ok: z.boolean(),
    buildId: z.string(),
    envId: z.string(),
    status: z.literal('running'),
    statusUrl: z.string(),
  })
  .meta({ id: 'BuildAccepted' });
export type BuildAccepted = z.infer<typeof BuildAccepted>;

/** Path parameters of /api/build/status/{buildId} and /api/build/rollback/{buildId}. */
export const BuildIdParams = z.object({ buildId: z.string().min(1).max(200) });
export type BuildIdParams = z.infer<typeof BuildIdParams>;

/** GET /api/build/last query. */
export const BuildLastQuery = z.object({ env: EnvName.optional() });
export type BuildLastQuery = z.infer<typeof BuildLastQuery>;

/** GET /api/build/history query: `limit` default 50, at most 500; `offset` default 0. */
export const BuildHistoryQuery = z.object({
  env: EnvName.optional(),
  limit: queryLimit({ fallback: 50, max: 500 }),
  offset: queryOffset(),
});
export type BuildHistoryQuery = z.infer<typeof BuildHistoryQuery>;

/** GET /api/build/history: newest first. */
export const BuildHistory = z.array(BuildStatus).meta({ id: 'BuildHistory' });
export type BuildHistory = z.infer<typeof BuildHistory>;

/**
 * POST /api/build/prune: deletes old build versions of one environment (default `dev`), keeping
 * the `keep` newest (default: the server's `CMS_BUILD_RETENTION`, else 10), the live one and any a
 * pending deployment or running build needs.
 */
export const BuildPruneBody = z.object({
  env: EnvName.optional(),
  keep: z.number().int().min(1).max(10_000).optional(),
});
export type BuildPruneBody = z.infer<typeof BuildPruneBody>;

/** POST /api/build/prune: the build ids whose folders were deleted (oldest first) and how many are left. */
export const BuildPruneResponse = z
  .object({ envId: z.string(), removed: z.array(z.string()), kept: z.number().int() })
  .meta({ id: 'BuildPruneResponse' });
export type BuildPruneResponse = z.infer<typeof BuildPruneResponse>;

/** POST /api/build/rollback/{buildId}: the environment serves that build's output again. */
export const BuildRollbackResponse = z
  .object({
    ok: z.boolean(),
    buildId: z.string(),
    envId: z.string(),
    rolledBackFrom: z.string().nullable(),
    deploy: DeployResult.nullable().optional(),
  })
  .meta({ id: 'BuildRollbackResponse' });
export type BuildRollbackResponse = z.infer<typeof BuildRollbackResponse>;
