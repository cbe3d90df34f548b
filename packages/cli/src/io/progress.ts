import type { ImportProgress } from '@trelliscms/sdk';
import cliProgress from 'cli-progress';
import type { TextSink } from './cli-io';

/** Shows the progress of an import on stderr. */
export interface ProgressReporter {
  update(progress: ImportProgress): void;
  stop(): void;
}

/**
 * A progress bar (cli-progress) when stderr is a terminal; otherwise one plain line per
 * request, so logs and CI output stay readable.
 */
export function createProgress({
  stderr,
  label,
  total,
  createdLabel = 'created',
}: {
  stderr: TextSink;
  label: string;
  total: number;
  createdLabel?: string;
}): ProgressReporter {
  const rate = (progress: ImportProgress) =>
    progress.elapsedMs > 0 ? Math.round((progress.done / progress.elapsedMs) * 1000) : 0;
  if (stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream: stderr as unknown as NodeJS.WritableStream,
        format: `${label} [{bar}] {percentage}% | {value}/{total} | ${createdLabel} {created}, failed {failed} | {rate}/s`,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { created: 0, failed: 0, rate: 0 });
    return {
      update: (progress) =>
        bar.update(progress.done, {
          created: progress.created,
          failed: progress.failed,
          rate: rate(progress),
        }),
      stop: () => bar.stop(),
    };
  }
  return {
    update: (progress) => {
      const percent = total === 0 ? 100 : Math.floor((progress.done / total) * 100);
      stderr.write(
        `${label}: ${progress.done}/${total} (${percent}%) ${createdLabel} ${progress.created}, failed ${progress.failed}, ${rate(progress)}/s\n`,
      );
    },
    stop: () => {},
  };
}
