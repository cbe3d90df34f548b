import type { BuildMode, BuildResult, BuildStatus } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';

export interface BuildCommandOptions {
  env?: string;
  mode?: BuildMode;
  /** Start an async build and follow its status to the end. */
  async: boolean;
  /** Same as `--mode validate`: render in memory, deploy nothing. */
  dryRun: boolean;
  pollIntervalMs: number;
}

/**
 * `cms build`: runs a build and prints its result. Exits 1 when the build failed, 4 when
 * it finished with transform errors.
 */
export async function build({
  site,
  out,
  ...options
}: Pick<SiteCommandDeps, 'site' | 'out'> & BuildCommandOptions): Promise<number> {
  const body = { env: options.env, mode: options.dryRun ? ('validate' as const) : options.mode };
  let result: BuildResult | BuildStatus;
  if (options.async) {
    const started = await site.build.start(body);
    out.note(`Build ${started.buildId} started on ${started.envId}; following its status…`);
    result = await site.build.wait(started.buildId, {
      pollIntervalMs: options.pollIntervalMs,
      onStatus: (status) => {
        if (status.status === 'running') out.note(`  ${status.buildId}: running`);
      },
    });
  } else {
    result = await site.build.run(body);
  }
  const failed = result.ok === false || ('status' in result && result.status === 'error');
  const transformErrors = result.transformErrors ?? [];
  out.result(result, () => {
    const lines = [
      `Build ${result.buildId} ${failed ? 'FAILED' : 'ok'}: ${result.artifacts ?? 0} artifact(s) in ${result.durationMs ?? 0} ms (mode ${result.mode ?? 'unknown'}).`,
    ];
    if (result.error) lines.push(`  error: ${result.error}`);
    if (result.deploy) {
      const deploy = result.deploy;
      lines.push(
        `  deployed ${deploy.filesUploaded} file(s), removed ${deploy.filesDeleted}, ${deploy.bytes} bytes${
          deploy.publicUrl ? ` to ${deploy.publicUrl}` : ''
        }`,
      );
      if (deploy.serveCheck) {
        lines.push(
          `  serve check: ${deploy.serveCheck.ok ? 'ok' : 'FAILED'} ${deploy.serveCheck.status} ${deploy.serveCheck.url}`,
        );
      }
    }
    for (const error of transformErrors.slice(0, 10)) {
      lines.push(`  transform error in ${error.contentId} (${error.transform}): ${error.error}`);
    }
    for (const warning of result.warnings ?? []) lines.push(`  warning: ${warning}`);
    return lines;
  });
  if (failed) return ExitCode.apiError;
  return transformErrors.length > 0 ? ExitCode.partial : ExitCode.ok;
}
