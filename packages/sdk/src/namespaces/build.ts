import {
  BuildAccepted,
  type BuildBody,
  BuildHistory,
  type BuildPruneBody,
  BuildPruneResponse,
  BuildResult,
  BuildRollbackResponse,
  BuildStatus,
} from '@trelliscms/core';
import type { z } from 'zod';
import { sleep } from '../helpers/sleep';
import { path } from '../http/path';
import type { CallOptions, ListPage, Transport } from '../http/transport';

/** Options of {@link BuildApi.wait} and {@link BuildApi.runAndWait}. */
export interface WaitOptions extends CallOptions {
  /** Milliseconds between two status reads. Default 1000. */
  pollIntervalMs?: number;
  /** Give up (rejecting with a `BuildWaitTimeoutError`) after this many ms. Default: wait for ever. */
  maxWaitMs?: number;
  /** Called with every status read, running or final. */
  onStatus?: (status: BuildStatus) => void;
}

/** {@link BuildApi.wait} ran past `maxWaitMs`; the build may still be running on the server. */
export class BuildWaitTimeoutError extends Error {
  override readonly name = 'BuildWaitTimeoutError';
  constructor(
    readonly buildId: string,
    readonly waitedMs: number,
  ) {
    super(`Build ${buildId} was still running after ${waitedMs} ms`);
  }
}

/**
 * Synchronous builds (and synchronous deploys, which build) default to this timeout (each
 * attempt), since a full build can take minutes.
 */
export const SYNC_BUILD_TIMEOUT_MS = 600_000;

/** Builds of the client's site (site-scoped). */
export function createBuildApi(transport: Transport) {
  const api = {
    /** POST /api/build: runs a build and resolves with its result when it ends (synchronous). */
    run: (
      body: Omit<z.input<typeof BuildBody>, 'async'> = {},
      options: CallOptions = {},
    ): Promise<BuildResult> =>
      transport.request({
        method: 'post',
        path: 'build',
        schema: BuildResult,
        json: { ...body, async: false },
        timeoutMs: SYNC_BUILD_TIMEOUT_MS,
        ...options,
      }),
    /** POST /api/build with `async`: starts a build and resolves at once (202) with its id. */
    start: (
      body: Omit<z.input<typeof BuildBody>, 'async'> = {},
      options: CallOptions = {},
    ): Promise<BuildAccepted> =>
      transport.request({
        method: 'post',
        path: 'build',
        schema: BuildAccepted,
        json: { ...body, async: true },
        ...options,
      }),
    /** GET /api/build/status/{buildId} */
    status: (buildId: string, options: CallOptions = {}): Promise<BuildStatus> =>
      transport.request({
        method: 'get',
        path: path('build', 'status', buildId),
        schema: BuildStatus,
        ...options,
      }),
    /** GET /api/build/last: the last build of the environment. */
    last: (query: { env?: string } = {}, options: CallOptions = {}): Promise<BuildStatus> =>
      transport.request({ method: 'get', path: 'build/last', schema: BuildStatus, query, ...options }),
    /** GET /api/build/history: recent builds, newest first (`limit` default 50, `offset` default 0). */
    history: (
      query: { env?: string; limit?: number; offset?: number } = {},
      options: CallOptions = {},
    ): Promise<BuildStatus[]> =>
      transport.request({ method: 'get', path: 'build/history', schema: BuildHistory, query, ...options }),
    /** GET /api/build/history as one page with the count of every build (`X-Total-Count`). */
    historyPage: (
      query: { env?: string; limit?: number; offset?: number } = {},
      options: CallOptions = {},
    ): Promise<ListPage<BuildStatus>> =>
      transport.requestPage({
        method: 'get',
        path: 'build/history',
        schema: BuildHistory,
        query,
        ...options,
      }),
    /** POST /api/build/rollback/{buildId}: serves a prior build's output again. */
    rollback: (buildId: string, options: CallOptions = {}): Promise<BuildRollbackResponse> =>
      transport.request({
        method: 'post',
        path: path('build', 'rollback', buildId),
        schema: BuildRollbackResponse,
        json: {},
        ...options,
      }),
    /**
     * POST /api/build/prune: deletes old build versions of an environment from the server's disk,
     * keeping the `keep` newest (default: the server's retention), the live one and any a pending
     * deployment needs.
     */
    prune: (body: BuildPruneBody = {}, options: CallOptions = {}): Promise<BuildPruneResponse> =>
      transport.request({
        method: 'post',
        path: 'build/prune',
        schema: BuildPruneResponse,
        json: body,
        ...options,
      }),
    /**
     * POST /api/build/cancel/{buildId}: asks a queued or running build to stop; it then ends
     * `error` with `cancelled: true` and deploys nothing. 409 when it is no longer running.
     */
    cancel: (buildId: string, options: CallOptions = {}): Promise<BuildStatus> =>
      transport.request({
        method: 'post',
        path: path('build', 'cancel', buildId),
        schema: BuildStatus,
        json: {},
        ...options,
      }),
    /** Polls GET /api/build/status/{buildId} until the build is no longer `running`. */
    wait: async (buildId: string, options: WaitOptions = {}): Promise<BuildStatus> => {
      const { pollIntervalMs = 1000, maxWaitMs, onStatus, ...callOptions } = options;
      const started = Date.now();
      for (;;) {
        const status = await api.status(buildId, callOptions);
        onStatus?.(status);
        if (status.status !== 'running') return status;
        const waited = Date.now() - started;
        if (maxWaitMs !== undefined && waited >= maxWaitMs) throw new BuildWaitTimeoutError(buildId, waited);
        await sleep(pollIntervalMs, callOptions.signal);
      }
    },
    /** Starts an async build and resolves with its final status when it ends (`ok` or `error`). */
    runAndWait: async (
      body: Omit<z.input<typeof BuildBody>, 'async'> = {},
      options: WaitOptions = {},
    ): Promise<BuildStatus> => {
      const started = await api.start(body, { signal: options.signal, timeoutMs: options.timeoutMs });
      return api.wait(started.buildId, options);
    },
  };
  return api;
}
export type BuildApi = ReturnType<typeof createBuildApi>;
