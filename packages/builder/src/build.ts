import { checkServed, commit, uncommittedFiles } from './pipeline/commit';
import { detectChanges } from './pipeline/detect-changes';
import { type Emitted, emit } from './pipeline/emit';
import { load } from './pipeline/load';
import { ALL_CHANNELS, type BuildOptions, type BuildResult, settingsOf } from './pipeline/options';
import { plan } from './pipeline/plan';
import { render } from './pipeline/render';
import { reasonCounts, selectWork } from './pipeline/select-work';
import { updateCache } from './pipeline/update-cache';
import type { BuildIssue } from './plan/plan-artifacts';

export { BUILDER_OUTPUT_VERSION, globalHashOf } from './pipeline/load';
export type { BuildFile, BuildOptions, BuildProgress, BuildResult } from './pipeline/options';

/**
 * Builds a site, stage by stage (each in `pipeline/`): load → detect changes → plan → select
 * work → render (worker threads) → emit (sitemap, search index) → commit (through the deploy
 * target's write session) → update the cache. With `activate: false` the version is committed
 * complete but not made live (`target.activate(buildId)` switches to it later). Template and
 * transform problems are reported in the result, never thrown; only bad input (an invalid
 * snapshot or options) throws a `TrellisError`. The same snapshot gives byte-identical pages
 * wherever it is built.
 */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const settings = settingsOf(options);
  const { env, progress } = settings;
  const content = await load({
    source: options.source,
    env,
    mediaBaseUrl: settings.mediaBaseUrl,
    channels: settings.channels.size === ALL_CHANNELS.length ? null : [...settings.channels],
    limits: settings.limits,
    // with render workers, transforms run off this thread too
    inWorker: settings.workers > 0,
    pool: settings.pool,
    previewBaseUrl: options.previewBaseUrl ?? null,
  });
  const changes = await detectChanges(settings, content);
  const planned = plan({ env, content, changes, channels: settings.channels });
  const errors: BuildIssue[] = [...planned.plan.errors];
  const warnings: BuildIssue[] = [...planned.plan.warnings];
  if (content.publicUrlMissing) {
    warnings.push({
      code: 'public_url_missing',
      message: options.previewBaseUrl
        ? `the site has no public URL: absolute URLs (sitemap, canonical links, feeds) use ${options.previewBaseUrl}; set the site's publicUrl or the environment's publicUrlOverride`
        : "the site has no public URL: the sitemap and absolute_url give root-relative URLs; set the site's publicUrl",
    });
  }
  const total = planned.plan.artifacts.length;
  progress({ phase: 'plan', done: total, total });
  const selection = selectWork({ settings, content, changes, planned });

  const result = (rest: Partial<BuildResult>): BuildResult => ({
    ok: errors.length === 0,
    buildId: settings.buildId,
    env,
    mode: settings.mode,
    effectiveMode: selection.mode,
    artifacts: 0,
    rendered: 0,
    renderedKeys: [],
    carried: selection.mode === 'incremental' ? selection.carried.length : 0,
    reasons: {},
    transformErrors: content.transformErrors,
    errors,
    warnings,
    files: [],
    deploy: null,
    live: false,
    manifest: null,
    ...rest,
    durationMs: Math.round(performance.now() - settings.started),
  });

  if (content.transformsStopped !== null) {
    // the items would render without what the transforms give them: nothing is rendered
    errors.push({ code: 'transforms_stopped', message: content.transformsStopped });
    return result({ ok: false });
  }

  const session = settings.target
    ? await settings.target.open({ buildId: settings.buildId, activate: settings.activate })
    : null;
  const emitNow = () =>
    emit({
      session,
      content,
      plan: planned.plan,
      changes,
      planned,
      selection,
      cache: settings.cache,
      channels: settings.channels,
    });
  let emitting: Promise<Emitted> | null = null;
  const rendering = await render({
    settings,
    content,
    plan: planned.plan,
    work: selection.work,
    session,
    meanwhile: () => {
      emitting = emitNow();
      // the plan's graph hash (the manifest's), made while the workers render rather than before
      setImmediate(() => planned.graphHash);
      return emitting;
    },
  });
  if (rendering.stopped) {
    errors.push({ code: 'build_stopped', message: rendering.reason });
    return result({ ok: false });
  }
  const { results } = rendering;
  for (const page of results) {
    if (page.error === undefined) continue;
    const { key, file: path, template } = page;
    errors.push({ code: 'render_failed', message: `${key}: ${page.error}`, key, path, template });
  }
  for (const page of results) {
    for (const found of page.undefinedVariables ?? []) {
      warnings.push({
        code: 'undefined_variable',
        message: `${found.template}${found.line === null ? '' : `:${found.line}`}: ${found.variable} has no value (page ${page.key}); it renders as nothing`,
        key: page.key,
        path: page.file,
        template: found.template,
        ...(found.line === null ? {} : { line: found.line }),
        variable: found.variable,
      });
    }
  }
  const renderedKeys = results.filter((r) => r.error === undefined).map((r) => r.key);
  const rendered = { renderedKeys, rendered: renderedKeys.length, reasons: reasonCounts(selection.work) };

  progress({ phase: 'emit', done: 0, total: 1 });
  const extras = await (emitting ?? emitNow());
  if (settings.mode === 'validate' || !session || errors.length > 0) {
    const files = uncommittedFiles({ results, selection, emitted: extras });
    await session?.abort();
    return result({ ...rendered, artifacts: files.length, files });
  }

  const committed = await commit({
    settings,
    session,
    content,
    changes,
    planned,
    selection,
    results,
    emitted: extras,
  });
  const { activate } = settings;
  updateCache({ activate, content, changes, planned, selection, emitted: extras, committed });
  // a version that is not live is not served: nothing to probe
  const deploy = activate ? await checkServed(committed.deploy, settings.serveCheckUrl) : committed.deploy;
  progress({ phase: 'deploy', done: 1, total: 1 });
  const { files, manifest } = committed;
  return result({ ...rendered, artifacts: files.length, files, deploy, live: activate, manifest });
}
