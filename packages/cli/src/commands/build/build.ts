import type { BuildMode, BuildProgress, BuildResult, BuildStatus } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import type { CliIo, TextSink } from '../../io/cli-io';
import type { SiteCommandDeps } from '../context';

export interface BuildCommandOptions {
  env?: string;
  mode?: BuildMode;
  /** Kept for scripts: every build that deploys is started in the background and followed. */
  async: boolean;
  /** Same as `--mode validate`: render in memory, deploy nothing. */
  dryRun: boolean;
  pollIntervalMs: number;
}

/** How a build's progress reads: `render 120/600`, `queued`. */
function progressText(progress: BuildProgress | null | undefined): string {
  if (!progress) return 'running';
  return progress.total > 0 ? `${progress.phase} ${progress.done}/${progress.total}` : progress.phase;
}

/**
 * Shows a running build's phase and counts on stderr: one line rewritten in place on a
 * terminal, else a line each time the phase changes (logs stay short).
 */
function progressDisplay(stderr: TextSink, buildId: string) {
  let lastPhase = '';
  let shown = false;
  return {
    update(status: BuildStatus) {
      if (status.status !== 'running') return;
      const text = `  ${buildId}: ${progressText(status.progress)}${status.cancelRequested ? ' (cancelling)' : ''}`;
      if (stderr.isTTY) {
        stderr.write(`\r\x1b[2K${text}`);
        shown = true;
      } else if ((status.progress?.phase ?? 'running') !== lastPhase) {
        stderr.write(`${text}\n`);
      }
      lastPhase = status.progress?.phase ?? 'running';
    },
    end() {
      if (shown) stderr.write('\r\x1b[2K');
    },
  };
}

/**
 * `cms build`: starts a build, follows its phases and counts to the end and prints its result
 * (`--dry-run` validates in one request instead). Ctrl-C asks the server to cancel the build
 * (a second Ctrl-C leaves it running and quits). Exits 1 when the build failed, 4 when it
 * finished with transform errors, 130 when it was cancelled.
 */
export async function build({
  site,
  out,
  io,
  ...options
}: Pick<SiteCommandDeps, 'site' | 'out'> & { io?: CliIo } & BuildCommandOptions): Promise<number> {
  const body = { env: options.env, mode: options.dryRun ? ('validate' as const) : options.mode };
  let result: BuildResult | BuildStatus;
  let cancelled = false;
  if (!options.dryRun) {
    const started = await site.build.start(body);
    out.note(`Build ${started.buildId} started on ${started.envId} (Ctrl-C cancels it)`);
    const display = progressDisplay(io?.stderr ?? { write: () => true }, started.buildId);
    const stopListening = io?.onInterrupt?.(() => {
      cancelled = true;
      display.end();
      out.note(`Cancelling build ${started.buildId}… (Ctrl-C again to quit and leave it running)`);
      site.build.cancel(started.buildId).catch((error: unknown) => {
        out.note(`Could not cancel: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
    try {
      result = await site.build.wait(started.buildId, {
        pollIntervalMs: options.pollIntervalMs,
        onStatus: (status) => display.update(status),
      });
    } finally {
      stopListening?.();
      display.end();
    }
    if (cancelled && 'cancelled' in result && result.cancelled) {
      out.result(result, () => [
        `Build ${result.buildId} cancelled: nothing was deployed; the site serves what it served.`,
      ]);
      return 130;
    }
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
    return lines;
  });
  if (failed) return ExitCode.apiError;
  return transformErrors.length > 0 ? ExitCode.partial : ExitCode.ok;
}
