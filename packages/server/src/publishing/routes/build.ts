import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { contentTypeOf, type DeployTarget } from '@trelliscms/builder';
import {
  BuildAccepted,
  BuildBody,
  BuildHistory,
  BuildHistoryQuery,
  BuildIdParams,
  BuildLastQuery,
  BuildPruneBody,
  BuildPruneResponse,
  BuildQuery,
  BuildResult,
  BuildRollbackResponse,
  BuildStatus,
  SiteSnapshot,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { withTotal } from '../../http/list-page';
import { ownOrigin } from '../../http/own-origin';
import { siteOf, siteViewOf } from '../../http/site-of';
import { getSite, type SiteView } from '../../platform/sites';
import { liveStateAt } from '../../releases/deployments';
import { getEnvironment } from '../../releases/environments';
import { envName, type LiveSource, type StartBuildInput } from '../build-service';
import { takeSnapshot } from '../take-snapshot';

const errors = errorResponses(400, 401, 403, 404, 409);

/** Where the server serves a site environment's live pages: `/sites/<slug>/<env>/`. */
export function livePath(siteId: string, env: string): string {
  return `/sites/${siteId.slice('site:'.length)}/${env}/`;
}

/**
 * Where a deploy is probed: the environment's `publicUrlOverride`, else (for `prod`) the
 * site's public URL (URLs a site admin chose: the guarded fetcher refuses them when they are
 * not public, unless CMS_OUTBOUND_ALLOW allows it), else the environment's live path on this
 * server's own address, when listening (built here, so trusted: `isServeCheckOwnAddress`).
 */
function serveCheckOf(
  app: FastifyInstance,
  site: SiteView,
  env: string,
  publicUrlOverride: string | null,
): Pick<StartBuildInput, 'serveCheckUrl' | 'isServeCheckOwnAddress'> {
  if (publicUrlOverride) return { serveCheckUrl: publicUrlOverride };
  if (site.publicUrl && env === 'prod') return { serveCheckUrl: site.publicUrl };
  const origin = ownOrigin(app);
  if (!origin) return { serveCheckUrl: null };
  return { serveCheckUrl: `${origin}${livePath(site.id, env)}`, isServeCheckOwnAddress: true };
}

/**
 * Sends the file at `path` (a URL path; a folder gives its index.html) of the deployed site
 * folder `dir` (a `current` pointer, resolved once, so a switch never mixes two versions in
 * one answer); a 404 with the site's own `404.html` when it has one, else a plain one.
 */
function sendFrom(reply: FastifyReply, dir: string | null, path: string | undefined) {
  const root = dir && existsSync(dir) ? realpathSync(dir) : null;
  const notFound = () => {
    reply.status(404).type('text/html; charset=utf-8');
    if (root && existsSync(join(root, '404.html')))
      return reply.sendFile('404.html', root, { cacheControl: false });
    return reply.send('<!doctype html><title>Not found</title><h1>Not found</h1>');
  };
  if (!root) return notFound();
  let decoded: string;
  try {
    decoded = decodeURIComponent(path ?? '');
  } catch {
    return notFound();
  }
  let relative = normalize(`/${decoded}`);
  if (relative.includes('\0') || relative.split('/').includes('..')) return notFound();
  // A folder gives its index.html, whatever its name looks like (`/changelog/1.2.0/`: the
  // router drops the trailing slash).
  const asDir = join(root, relative);
  if (existsSync(asDir) && statSync(asDir).isDirectory()) relative = join(relative, 'index.html');
  const file = join(root, relative);
  if (!file.startsWith(`${root}/`) || !existsSync(file) || !statSync(file).isFile()) return notFound();
  return reply.sendFile(relative.slice(1), root, { cacheControl: false });
}

/**
 * Sends a file of a target that keeps its files in a store (the S3 target): read through the
 * live pointer, so whichever server answers serves the same version. Paths as {@link sendFrom}.
 */
async function sendFromStore(reply: FastifyReply, target: DeployTarget, path: string | undefined) {
  const notFound = async () => {
    reply.status(404).type('text/html; charset=utf-8');
    const page = await target.readLiveFile!('404.html');
    return reply.send(page ? page.body : '<!doctype html><title>Not found</title><h1>Not found</h1>');
  };
  let decoded: string;
  try {
    decoded = decodeURIComponent(path ?? '');
  } catch {
    return notFound();
  }
  const relative = normalize(`/${decoded}`);
  if (relative.includes('\0') || relative.split('/').includes('..')) return notFound();
  const file = await target.readLiveFile!(relative.slice(1));
  if (!file) return notFound();
  reply.type(file.contentType ?? contentTypeOf(file.path));
  if (file.bytes !== null) reply.header('content-length', file.bytes);
  if (file.etag) reply.header('etag', file.etag);
  return reply.send(file.body);
}

/** Sends from a live source: a folder or a store. */
function sendFromSource(reply: FastifyReply, source: LiveSource | null, path: string | undefined) {
  if (source?.target) return sendFromStore(reply, source.target, path);
  return sendFrom(reply, source?.dir ?? null, path);
}

/**
 * Spec §4 Build (site-scoped): POST /build (sync by default; async answers 202 with a
 * statusUrl; dryRun/validate renders in memory), status, last, history, rollback; and
 * GET /export, the site snapshot a build reads. Deployed pages are served (public) at
 * `/sites/<slug>/<env>/`.
 */
export const buildRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/build',
    {
      schema: {
        tags: ['build'],
        summary: 'Build the site and deploy it (sync by default)',
        description:
          'Query `env` overrides the body’s (default `dev`: every item at its head version; any other environment renders each item at the version live there (its live state: publish, deployments) and gives other items a stub page). The environment must exist on the site (`dev` and `prod` always do; 400 `unknown_environment` otherwise: a build never creates one). Modes: `full`, `incremental` (default), `auto`, `validate` (= `dryRun=1`: renders in memory, deploys nothing, records no build). `asOf` (a past or future time) builds a preview of the environment as it was or will be then (pending deployments due by then applied) into its own folder, served at `previewUrl` (`/previews/<slug>/<buildId>/`), never live. `async=1` answers 202 with `statusUrl`. Builds of one site and environment run one at a time.',
        querystring: BuildQuery,
        body: BuildBody.optional().nullable(),
        response: { 200: BuildResult, 202: BuildAccepted, ...errors },
      },
      config: { siteScope: 'site', permission: 'build:run' },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const env = envName(request.query.env ?? body.env);
      const environment = await getEnvironment(siteOf(request).graph, env);
      const mode = request.query.dryRun ? 'validate' : (body.mode ?? 'incremental');
      const site = await siteViewOf(app, request);
      const graph = siteOf(request).graph;
      const asOf = body.asOf ? new Date(body.asOf) : null;
      const input: StartBuildInput = {
        site,
        graph,
        env,
        mode: asOf && mode !== 'validate' ? 'full' : mode,
        actor: actorOf(request.principal!),
        ...(body.outputChannels ? { outputChannels: body.outputChannels } : {}),
        ...(asOf
          ? { serveCheckUrl: null }
          : serveCheckOf(app, site, env, environment.publicUrlOverride ?? null)),
        ...(asOf && env !== 'dev'
          ? {
              live: (await liveStateAt(graph, { envId: `env:${env}`, at: asOf, now: app.releases.now() }))
                .live,
            }
          : {}),
        ...(asOf && mode !== 'validate' ? { purpose: 'preview' as const, asOf: asOf.toISOString() } : {}),
      };
      const isAsync = request.query.async ?? body.async ?? false;
      if (isAsync && mode !== 'validate') {
        const started = await app.builds.start(input);
        return reply.status(202).send({
          ok: true,
          buildId: started.buildId,
          envId: started.envId,
          status: 'running' as const,
          statusUrl: `/api/build/status/${started.buildId}`,
          ...(started.previewUrl ? { previewUrl: started.previewUrl } : {}),
        });
      }
      return app.builds.runSync(input);
    },
  );

  app.get(
    '/api/build/status/:buildId',
    {
      schema: {
        tags: ['build'],
        summary: 'A build’s status: running, then ok or error with its final counts',
        params: BuildIdParams,
        response: { 200: BuildStatus, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => app.builds.status(siteOf(request).graph, request.params.buildId),
  );

  app.get(
    '/api/build/last',
    {
      schema: {
        tags: ['build'],
        summary: 'The build an environment serves now',
        description:
          'The build switched in last (by a build, a deployment, a release rollback or a build rollback; `live: true`), as recorded in the site graph, so it is the same after a restart; before any switch, the newest build of the environment. 404 when it has none.',
        querystring: BuildLastQuery,
        response: { 200: BuildStatus, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => {
      const env = envName(request.query.env);
      await getEnvironment(siteOf(request).graph, env);
      const last = await app.builds.last(siteOf(request).graph, env);
      if (!last) throw TrellisError.of('not_found', { resource: `A build of env:${env}` });
      return last;
    },
  );

  app.get(
    '/api/build/history',
    {
      schema: {
        tags: ['build'],
        summary: 'Recent builds, newest first (default 50; `offset` pages, `X-Total-Count` counts them all)',
        description:
          'Builds of every purpose: `build`, `deployment` (the build a deployment went live with), `prebuild` (built ahead for a scheduled deployment) and `preview` (`asOf`). `live: true` marks the build each environment serves now.',
        querystring: BuildHistoryQuery,
        response: { 200: BuildHistory, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      if (request.query.env !== undefined) await getEnvironment(graph, envName(request.query.env));
      const page = await app.builds.history(graph, request.query);
      withTotal(reply, page.total);
      return page.items;
    },
  );

  app.post(
    '/api/build/rollback/:buildId',
    {
      schema: {
        tags: ['build'],
        summary: 'Serve a prior build’s pages again (one atomic pointer switch)',
        params: BuildIdParams,
        response: { 200: BuildRollbackResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'build:run' },
    },
    async (request) =>
      app.builds.rollback({
        graph: siteOf(request).graph,
        site: await siteViewOf(app, request),
        buildId: request.params.buildId,
        actor: actorOf(request.principal!),
      }),
  );

  app.post(
    '/api/build/cancel/:buildId',
    {
      schema: {
        tags: ['build'],
        summary: 'Stop a queued or running build',
        description:
          'The build stops between pages (on another server within about a second), deploys nothing and ends `error` with `cancelled: true`; the environment keeps serving what it served. Answers the build’s status with `cancelRequested: true`; 409 when it is no longer running. `cms build` sends this on Ctrl-C.',
        params: BuildIdParams,
        response: { 200: BuildStatus, ...errors },
      },
      config: { siteScope: 'site', permission: 'build:run' },
    },
    async (request) =>
      app.builds.cancel(siteOf(request).graph, request.params.buildId, actorOf(request.principal!)),
  );

  app.post(
    '/api/build/prune',
    {
      schema: {
        tags: ['build'],
        summary: 'Delete old build versions of an environment from disk',
        description:
          'Keeps the `keep` newest versions (default `CMS_BUILD_RETENTION`, or 10 when that is 0), the live one, and any a pending deployment or a running build needs; every other version folder and its manifest are deleted. Build records stay in the history; rolling back to a pruned build builds it again. The server also prunes after each build when `CMS_BUILD_RETENTION` is above 0.',
        body: BuildPruneBody.optional().nullable(),
        response: { 200: BuildPruneResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'build:run' },
    },
    async (request) => {
      const body = request.body ?? {};
      const env = envName(body.env);
      const graph = siteOf(request).graph;
      await getEnvironment(graph, env);
      const site = await siteViewOf(app, request);
      const keep = body.keep ?? (app.trellis.config.CMS_BUILD_RETENTION || 10);
      const result = await app.builds.prune({ graph, graphName: site.graphName, env, keep });
      if (result.removed.length > 0) {
        await graph.transaction((tx) =>
          tx.appendAudit({
            actor: actorOf(request.principal!),
            action: 'build.prune',
            target: `env:${env}`,
            data: { removed: result.removed, kept: result.kept },
          }),
        );
      }
      return { envId: `env:${env}`, ...result };
    },
  );

  app.get(
    '/api/export',
    {
      schema: {
        tags: ['build'],
        summary: 'The site snapshot: types, items, edges, templates, transforms, routes, views, settings',
        description:
          'The documented `trellis-snapshot` format a build reads; `cms-build --snapshot` builds the same pages from it.',
        response: { 200: SiteSnapshot, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) =>
      takeSnapshot({
        graph: siteOf(request).graph,
        site: await siteViewOf(app, request),
        clock: app.trellis.clock,
      }),
  );

  const serveLive = async (
    request: FastifyRequest<{ Params: { slug: string; env: string; '*'?: string } }>,
    reply: FastifyReply,
  ) => {
    const record = await getSite(app.trellis.platform, `site:${request.params.slug}`);
    const live =
      record && !record.deletedAt
        ? app.builds.liveSource(record.graphName, envName(request.params.env))
        : null;
    return sendFromSource(reply, live, request.params['*']);
  };
  const servePreview = async (
    request: FastifyRequest<{ Params: { slug: string; buildId: string; '*'?: string } }>,
    reply: FastifyReply,
  ) => {
    const record = await getSite(app.trellis.platform, `site:${request.params.slug}`);
    const source =
      record && !record.deletedAt ? app.builds.previewSource(record.graphName, request.params.buildId) : null;
    return sendFromSource(reply, source, request.params['*']);
  };
  const liveOptions = { schema: { hide: true }, config: { siteScope: 'none' as const, public: true } };
  app.get<{ Params: { slug: string; buildId: string } }>(
    '/previews/:slug/:buildId',
    liveOptions,
    servePreview,
  );
  app.get<{ Params: { slug: string; buildId: string; '*': string } }>(
    '/previews/:slug/:buildId/*',
    liveOptions,
    servePreview,
  );
  app.get<{ Params: { slug: string; env: string } }>('/sites/:slug/:env', liveOptions, serveLive);
  app.get<{ Params: { slug: string; env: string; '*': string } }>(
    '/sites/:slug/:env/*',
    liveOptions,
    serveLive,
  );
};
