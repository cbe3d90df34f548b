import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { BuildMode } from '@trelliscms/core';
// the zod-free entry: the build thread starts without loading core's schemas
import { BUILD_MODES, isTrellisError } from '@trelliscms/core/build';
import { type BuildProgress, type BuildResult, build } from '../build';
import { createDirectoryTarget } from '../deploy/directory-target';
import { createFolderTarget } from '../deploy/folder-target';
import { discardPrestartedWorkers, prestartMemoryMb, prestartRenderWorkers } from '../render/render-pool';
import { readSnapshotFile } from '../snapshot/read-snapshot';
import type { Snapshot } from '../snapshot/types';
import type { ContentSource } from '../source/content-source';

/** The options of `cms-build`, as commander parses them. */
export interface BuildCommandOptions {
  snapshot?: string;
  api?: string;
  key?: string;
  site?: string;
  out?: string;
  target?: string;
  env?: string;
  mode?: string;
  workers?: string;
  json?: boolean;
}

/** Where the command writes: stdout for results, stderr for progress and messages. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** true when stderr is a terminal (progress redraws one line) */
  isTty: boolean;
}

const modes: readonly BuildMode[] = BUILD_MODES;

/** Runs `cms-build`; resolves to the exit code (0 ok, 1 build errors, 2 bad input). */
export async function runBuildCommand(options: BuildCommandOptions, io: CommandIo): Promise<number> {
  const fail = (message: string) => {
    io.stderr(`cms-build: ${message}\n`);
    return 2;
  };
  const mode = modes.find((known) => known === (options.mode ?? 'incremental'));
  if (mode === undefined) return fail(`--mode must be one of ${modes.join(', ')}`);
  if (Boolean(options.snapshot) === Boolean(options.api))
    return fail('give either --snapshot <file> or --api <url>');
  if (options.api && (!options.key || !options.site)) return fail('--api needs --key and --site');
  if (!options.out && mode !== 'validate') return fail('--out <dir> is required');
  const targetName = options.target ?? 'dir';
  if (targetName !== 'dir' && targetName !== 'directory') return fail('--target must be dir or directory');
  const workers = options.workers === undefined ? undefined : Number(options.workers);
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 0))
    return fail('--workers must be an integer >= 0');

  let result: BuildResult;
  let lastDraw = 0;
  const onProgress = (p: BuildProgress) => {
    if (p.phase !== 'render') {
      if (p.done === 0) io.stderr(`${p.phase}…\n`);
      return;
    }
    const now = Date.now();
    if (p.done !== p.total && now - lastDraw < 100) return;
    lastDraw = now;
    const line = `rendered ${p.done}/${p.total}`;
    if (io.isTty) io.stderr(`\r${line}${p.done === p.total ? '\n' : ''}`);
    else if (p.done === p.total || p.done === 0) io.stderr(`${line}\n`);
  };
  // The render workers start while the snapshot is read and planned (see prestartRenderWorkers).
  if (options.snapshot && workers !== 0) {
    let fileBytes: number | null = null;
    try {
      fileBytes = statSync(resolve(options.snapshot)).size;
    } catch {
      // reading it reports the problem
    }
    const memoryMb = fileBytes === null ? null : prestartMemoryMb(fileBytes);
    // as many as the build starts (its default: pipeline/options.ts)
    if (memoryMb !== null) prestartRenderWorkers(workers ?? Math.min(2, availableParallelism()), memoryMb);
  }
  try {
    const source: ContentSource | Snapshot = options.snapshot
      ? await readSnapshotFile(resolve(options.snapshot))
      : // imported here: the SDK (and core's zod schemas with it) stays out of snapshot builds' start-up
        new (await import('../source/api-source')).ApiSource({
          url: options.api!,
          key: options.key!,
          site: options.site!,
          env: options.env,
        });
    const out = options.out ? resolve(options.out) : null;
    const target =
      mode === 'validate' || !out
        ? null
        : targetName === 'directory'
          ? createDirectoryTarget({ root: out })
          : createFolderTarget({ dir: out });
    // the manifest is written, never read here: its dependencies need not become objects again
    result = await build({
      source,
      target,
      env: options.env ?? 'dev',
      mode,
      workers,
      onProgress,
      manifestWrittenOnly: true,
    });
  } catch (error) {
    if (isTrellisError(error)) return fail(`${error.message} (${error.code})`);
    throw error;
  } finally {
    // those the build did not take (a small site renders on fewer workers; a failed build on none)
    await discardPrestartedWorkers();
  }
  if (options.json)
    io.stdout(`${JSON.stringify(result, (key, value) => (key === 'manifest' ? undefined : value), 2)}\n`);
  const summary = `${result.ok ? 'ok' : 'failed'}: ${result.effectiveMode} build ${result.buildId} (env ${result.env}): ${result.artifacts} files, ${result.rendered} rendered, ${result.carried} carried over, ${result.durationMs} ms`;
  io.stderr(`${summary}\n`);
  const reasons = Object.entries(result.reasons)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([reason, count]) => `${count} ${reason}`);
  if (reasons.length > 0) io.stderr(`rendered because: ${reasons.join(', ')}\n`);
  if (result.deploy) {
    io.stderr(
      `deployed: ${result.deploy.filesUploaded} uploaded, ${result.deploy.filesDeleted} deleted, ${result.deploy.bytes} bytes\n`,
    );
  }
  for (const error of result.transformErrors)
    io.stderr(`transform ${error.transform} on ${error.contentId}: ${error.error}\n`);
  for (const warning of result.warnings) io.stderr(`warning: ${warning.message}\n`);
  for (const error of result.errors) io.stderr(`error: ${error.code}: ${error.message}\n`);
  return result.ok ? 0 : 1;
}
