import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { constants, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';

/**
 * The build thread's heap limit of `cms-build`. Node's default old-generation limit (about
 * 4 GB on a 64-bit machine, whatever its memory) is too small for a large snapshot: the build
 * thread holds the snapshot's items and edges (the bodies stay in shared memory), the plan and
 * every page's result until the manifest is made. A 1.9 GB snapshot of 1,000,000 items takes
 * about 3 GB of heap once read (docs/benchmarks.md, "Build memory, session 10").
 *
 * The limit wanted is {@link HEAP_PER_SNAPSHOT_BYTE} times the snapshot file's size plus
 * {@link HEAP_BASE_MB}; when it is above the current limit, `cms-build` starts itself again
 * with `--max-old-space-size` (Node's own flag). It gives the build thread at most
 * {@link MAX_SHARE_OF_MEMORY} of the machine's memory (the render workers need the rest), and
 * refuses, before reading the snapshot, a snapshot whose estimate is above that.
 * `--max-heap <mb>` sets the limit (no estimate, no refusal), as does
 * `--max-old-space-size` given to node (`NODE_OPTIONS` or node's arguments).
 */
export const HEAP_PER_SNAPSHOT_BYTE = 4;
/** What the build thread needs besides the snapshot (code, templates, small sites' everything). */
export const HEAP_BASE_MB = 512;
/** The share of the machine's memory the build thread's heap may be given. */
export const MAX_SHARE_OF_MEMORY = 0.5;
/** Set in the environment of the process started again (it does not start itself once more). */
export const HEAP_ENV = 'TRELLIS_CMS_BUILD_HEAP_MB';

const MB = 1024 * 1024;

/** What to do with the heap limit before a build. */
export type HeapDecision =
  | { kind: 'keep' }
  | { kind: 'raise'; mb: number; reason: string }
  | { kind: 'refuse'; message: string };

/** Decides the build thread's heap limit (pure: the caller gives sizes in bytes). */
export function decideHeap(params: {
  /** size of the snapshot file; null when building from the API (size unknown) */
  snapshotBytes: number | null;
  totalMemoryBytes: number;
  currentLimitBytes: number;
  /** `--max-heap`, in MB */
  requestedMb?: number;
  /** node was given `--max-old-space-size` (its limit is the user's) */
  nodeFlagGiven?: boolean;
}): HeapDecision {
  const currentMb = Math.floor(params.currentLimitBytes / MB);
  if (params.requestedMb !== undefined) {
    // node's limit differs a little from the flag's value (its young generation is added): 5 % apart is the same
    if (Math.abs(params.requestedMb - currentMb) <= params.requestedMb * 0.05) return { kind: 'keep' };
    return { kind: 'raise', mb: params.requestedMb, reason: '--max-heap' };
  }
  if (params.nodeFlagGiven || params.snapshotBytes === null) return { kind: 'keep' };
  const neededMb = Math.ceil((params.snapshotBytes * HEAP_PER_SNAPSHOT_BYTE) / MB) + HEAP_BASE_MB;
  const allowedMb = Math.floor((params.totalMemoryBytes * MAX_SHARE_OF_MEMORY) / MB);
  if (neededMb > allowedMb) {
    const gb = (bytes: number) => (bytes / 1024 ** 3).toFixed(1);
    return {
      kind: 'refuse',
      message:
        `the snapshot (${gb(params.snapshotBytes)} GB) needs about ${gb(neededMb * MB)} GB of heap on the build thread ` +
        `(${HEAP_PER_SNAPSHOT_BYTE} × its size + ${HEAP_BASE_MB} MB), more than the ${gb(allowedMb * MB)} GB ` +
        `(${MAX_SHARE_OF_MEMORY * 100} % of this machine's ${gb(params.totalMemoryBytes)} GB) cms-build gives it: ` +
        'build on a machine with more memory, or give --max-heap <mb> to try anyway',
    };
  }
  if (neededMb <= currentMb) return { kind: 'keep' };
  return { kind: 'raise', mb: neededMb, reason: 'sized from the snapshot file' };
}

/** Whether node runs with `--max-old-space-size` given by the user (its arguments or NODE_OPTIONS). */
function nodeFlagGiven(): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((arg) => /^--max[-_]old[-_]space[-_]size\b/.test(arg));
}

/**
 * Sizes the heap of this `cms-build` process for the build (see {@link decideHeap}): null when
 * this process goes on with the build, else its exit code (2 when refused; the exit code of
 * the process started again with the limit, which did the build).
 */
export async function sizeHeap(
  options: { snapshot?: string; maxHeap?: string },
  stderr: (text: string) => void,
): Promise<number | null> {
  if (process.env[HEAP_ENV] !== undefined) return null;
  let requestedMb: number | undefined;
  if (options.maxHeap !== undefined) {
    requestedMb = Number(options.maxHeap);
    if (!Number.isInteger(requestedMb) || requestedMb < 64) {
      stderr('cms-build: --max-heap must be a whole number of MB, at least 64\n');
      return 2;
    }
  }
  let snapshotBytes: number | null = null;
  if (options.snapshot) {
    try {
      snapshotBytes = statSync(options.snapshot).size;
    } catch {
      return null; // reading it reports the problem
    }
  }
  const decision = decideHeap({
    snapshotBytes,
    totalMemoryBytes: totalmem(),
    currentLimitBytes: getHeapStatistics().heap_size_limit,
    requestedMb,
    nodeFlagGiven: nodeFlagGiven(),
  });
  if (decision.kind === 'keep') return null;
  if (decision.kind === 'refuse') {
    stderr(`cms-build: ${decision.message}\n`);
    return 2;
  }
  stderr(`cms-build: build thread heap limit ${decision.mb} MB (${decision.reason})\n`);
  const child = spawn(
    process.execPath,
    [...process.execArgv, `--max-old-space-size=${decision.mb}`, ...process.argv.slice(1)],
    { stdio: 'inherit', env: { ...process.env, [HEAP_ENV]: String(decision.mb) } },
  );
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return await new Promise<number>((resolve) => {
    child.on('error', (error) => {
      stderr(`cms-build: could not start again with a larger heap: ${error.message}\n`);
      resolve(2);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
