import type { BuildStatus } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';
import { pageFooter } from '../page-footer';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

const row = (build: BuildStatus) => ({
  live: build.live ? '*' : '',
  buildId: build.buildId,
  envId: build.envId,
  status: build.status,
  mode: build.mode ?? '',
  purpose: build.purpose ?? '',
  artifacts: build.artifacts ?? '',
  durationMs: build.durationMs ?? '',
  startedAt: build.startedAt ?? '',
});
const COLUMNS = [
  ['live', ''],
  'buildId',
  'envId',
  'status',
  'mode',
  'purpose',
  'artifacts',
  'durationMs',
  'startedAt',
] as const;

/** `cms builds history [--env] [--limit] [--offset]`: recent builds, newest first, the live one marked `*`. */
export async function buildsHistory({
  site,
  out,
  env,
  limit,
  offset,
}: Deps & { env?: string; limit?: number; offset?: number }): Promise<number> {
  const page = await site.build.historyPage({
    ...(env ? { env } : {}),
    ...(limit ? { limit } : {}),
    ...(offset ? { offset } : {}),
  });
  out.result(page.items, () => {
    const lines = table(page.items.map(row), COLUMNS);
    lines.push(pageFooter({ offset: offset ?? 0, shown: page.items.length, total: page.total }));
    return lines;
  });
  return ExitCode.ok;
}

/** `cms builds status <buildId>` and `cms builds last`: one build; exits 1 when it ended in error. */
export async function buildsShow({
  site,
  out,
  buildId,
  env,
}: Deps & { buildId?: string; env?: string }): Promise<number> {
  const build = buildId ? await site.build.status(buildId) : await site.build.last(env ? { env } : {});
  out.result(build, () => {
    const lines = [
      `Build ${build.buildId} on ${build.envId}: ${build.status}${build.live ? ' (live)' : ''}`,
      `  mode ${build.mode ?? '?'}, ${build.artifacts ?? 0} artifact(s) in ${build.durationMs ?? 0} ms${build.purpose ? `, for ${build.purpose}` : ''}`,
    ];
    if (build.startedAt)
      lines.push(`  started ${build.startedAt}${build.finishedAt ? `, finished ${build.finishedAt}` : ''}`);
    if (build.error) lines.push(`  error: ${build.error}`);
    if (build.deploymentId) lines.push(`  deployment: ${build.deploymentId}`);
    if (build.previewUrl) lines.push(`  preview: ${build.previewUrl}`);
    if (build.deploy?.publicUrl) lines.push(`  deployed to ${build.deploy.publicUrl}`);
    for (const error of (build.transformErrors ?? []).slice(0, 10)) {
      lines.push(`  transform error in ${error.contentId} (${error.transform}): ${error.error}`);
    }
    if (build.status === 'running') lines.push(`Follow it: cms builds status ${build.buildId}`);
    return lines;
  });
  return build.status === 'error' ? ExitCode.apiError : ExitCode.ok;
}

/** `cms builds rollback <buildId>`: serves a prior build's output again (one pointer write; no render). */
export async function buildsRollback({ site, out, buildId }: Deps & { buildId: string }): Promise<number> {
  const answer = await site.build.rollback(buildId);
  out.result(answer, () =>
    answer.ok
      ? `${answer.envId} now serves build ${answer.buildId}${answer.rolledBackFrom ? ` (was ${answer.rolledBackFrom})` : ''}.`
      : `Rollback to ${answer.buildId} did not complete.`,
  );
  return answer.ok ? ExitCode.ok : ExitCode.apiError;
}

/** `cms builds cancel <buildId>`: asks a queued or running build to stop (409 when it already ended). */
export async function buildsCancel({ site, out, buildId }: Deps & { buildId: string }): Promise<number> {
  const build = await site.build.cancel(buildId);
  out.result(build, () =>
    build.status === 'running'
      ? `Asked build ${build.buildId} to stop; it ends as soon as its current step does (cms builds status ${build.buildId}).`
      : `Build ${build.buildId} stopped: ${build.status}.`,
  );
  return ExitCode.ok;
}

/**
 * `cms builds prune [--env] [--keep n]`: deletes old build versions of an environment from the
 * server's disk, keeping the newest (`keep`, else the server's retention), the live one and any
 * a pending deployment needs.
 */
export async function buildsPrune({
  site,
  out,
  env,
  keep,
}: Deps & { env?: string; keep?: number }): Promise<number> {
  const answer = await site.build.prune({ ...(env ? { env } : {}), ...(keep ? { keep } : {}) });
  out.result(answer, () =>
    answer.removed.length === 0
      ? `Nothing to prune on ${answer.envId}: ${answer.kept} build version(s) kept.`
      : `Pruned ${answer.removed.length} build version(s) of ${answer.envId} (${answer.removed.join(', ')}); ${answer.kept} kept.`,
  );
  return ExitCode.ok;
}
