import {
  type EdgeRef,
  type EdgeTriple,
  type ImportEdgesBody,
  ImportEdgesResponse,
  type ImportJsonBody,
  ImportJsonResponse,
  type RemoveEdgesBody,
  RemoveEdgesResponse,
} from '@trelliscms/core';
import type { z } from 'zod';
import { type CallOutcome, sendInCalls } from '../helpers/send-in-calls';
import type { CallOptions, Transport } from '../http/transport';

/** Progress of {@link ImportApi.records} and {@link ImportApi.allEdges}, after each call. */
export interface ImportProgress {
  /** Items sent and answered so far. */
  done: number;
  /** Items in the whole import. */
  total: number;
  /** Records created (records) or edges merged (edges) so far. */
  created: number;
  /** Items that failed so far. */
  failed: number;
  /** Calls answered so far. */
  calls: number;
  /** Milliseconds since the import started. */
  elapsedMs: number;
}

/**
 * Options of {@link ImportApi.records}: the body of POST /api/import/json but `records`
 * (`typeName`, `batchSize`, `skipExisting`, `dryRun`, `publish`), and how to send it.
 */
export interface ImportRecordsOptions extends Omit<z.input<typeof ImportJsonBody>, 'records'>, CallOptions {
  records: readonly Record<string, unknown>[];
  /**
   * Publish the items of each request to this environment (e.g. `prod`) once it is written:
   * one live revision per request.
   */
  publish?: string;
  /** Records per request. Default 1000; a 413 or a gateway-timeout warning makes it smaller. */
  callSize?: number;
  /** Called after each request. */
  onProgress?: (progress: ImportProgress) => void;
}

/**
 * The sum of every call of {@link ImportApi.records}; error indexes point into `records`. Each
 * record is counted once: created, updated, unchanged, skipped or failed.
 */
export interface ImportRecordsResult {
  ok: boolean;
  totalRecords: number;
  /** Records that created an item. */
  created: number;
  /** Records that changed an existing item (a new version). */
  updated: number;
  /** Records an existing item already held (nothing written). */
  unchanged: number;
  failed: number;
  skipped: number;
  /** With `publish`: the environment and how many items went live, over every request. */
  published?: { envId: string; count: number };
  /** Server-side transactions, summed over calls. */
  batches: number;
  /** HTTP requests made. */
  calls: number;
  tookMs: number;
  recordsPerSec: number;
  errors: { index: number; id: string; error: string }[];
}

/** Options of {@link ImportApi.allEdges}. */
export interface ImportAllEdgesOptions extends CallOptions {
  edges: readonly z.input<typeof EdgeTriple>[];
  /** Edges per server-side transaction (1 to 2000; server default 500). */
  batchSize?: number;
  /** Edges per request. Default 5000; a 413 makes it smaller. */
  callSize?: number;
  onProgress?: (progress: ImportProgress) => void;
}

/** The sum of every call of {@link ImportApi.allEdges}; error indexes point into `edges`. */
export interface ImportAllEdgesResult {
  ok: boolean;
  totalEdges: number;
  merged: number;
  mismatch: number;
  failed: number;
  batches: number;
  calls: number;
  tookMs: number;
  edgesPerSec: number;
  errors: { index: number; error: string }[];
}

/** Options of {@link ImportApi.removeEdges}. */
export interface RemoveEdgesOptions extends CallOptions {
  edges: readonly z.input<typeof EdgeRef>[];
  /** Edges per server-side transaction (1 to 2000; server default 500). */
  batchSize?: number;
}

/** Bulk import into the client's site (site-scoped). */
export function createImportApi(transport: Transport) {
  const api = {
    /** POST /api/import/json: one request; 413 when it has too many records. */
    json: (body: z.input<typeof ImportJsonBody>, options: CallOptions = {}): Promise<ImportJsonResponse> =>
      transport.request({
        method: 'post',
        path: 'import/json',
        schema: ImportJsonResponse,
        json: body,
        ...options,
      }),
    /**
     * POST /api/import/edges: one request; edges are merged between existing items. Each must
     * be a relationship the source item's type declares; refused ones are in `errors`.
     */
    edges: (body: z.input<typeof ImportEdgesBody>, options: CallOptions = {}): Promise<ImportEdgesResponse> =>
      transport.request({
        method: 'post',
        path: 'import/edges',
        schema: ImportEdgesResponse,
        json: body,
        ...options,
      }),
    /**
     * POST /api/import/edges/remove: removes edges `{from, edge, to}` between items (one
     * request); `removed`, `missing` (did not exist) and refused ones in `errors`.
     */
    removeEdges: ({ edges, batchSize, ...options }: RemoveEdgesOptions): Promise<RemoveEdgesResponse> => {
      const body: z.input<typeof RemoveEdgesBody> = { edges: [...edges], batchSize };
      return transport.request({
        method: 'post',
        path: 'import/edges/remove',
        schema: RemoveEdgesResponse,
        json: body,
        ...options,
      });
    },

    /**
     * Imports any number of records: splits them into requests of `callSize`, follows a
     * 413's `suggestedBatchSize`, sums the answers and reports progress after each request.
     * A request that fails otherwise rejects the whole promise (records sent before it stay).
     * Re-sending records is safe: items that already hold them count as `unchanged`.
     */
    records: async (options: ImportRecordsOptions): Promise<ImportRecordsResult> => {
      const { records, callSize = 1000, onProgress, signal, timeoutMs, ...body } = options;
      const started = now();
      const sum: ImportRecordsResult = {
        ok: true,
        totalRecords: records.length,
        created: 0,
        updated: 0,
        unchanged: 0,
        failed: 0,
        skipped: 0,
        batches: 0,
        calls: 0,
        tookMs: 0,
        recordsPerSec: 0,
        errors: [],
      };
      let done = 0;
      await sendInCalls({
        items: records,
        size: callSize,
        send: async (chunk, offset): Promise<CallOutcome> => {
          const answer = await api.json({ ...body, records: [...chunk] }, { signal, timeoutMs });
          sum.ok &&= answer.ok;
          sum.created += answer.created;
          sum.updated += answer.updated ?? 0;
          sum.unchanged += answer.unchanged ?? 0;
          sum.failed += answer.failed;
          sum.skipped += answer.skipped ?? 0;
          if (answer.published) {
            sum.published = {
              envId: answer.published.envId,
              count: (sum.published?.count ?? 0) + answer.published.count,
            };
          }
          sum.batches += answer.batches;
          sum.calls += 1;
          for (const error of answer.errors) sum.errors.push({ ...error, index: error.index + offset });
          done += chunk.length;
          onProgress?.({
            done,
            total: records.length,
            created: sum.created,
            failed: sum.failed,
            calls: sum.calls,
            elapsedMs: now() - started,
          });
          return { suggestedSize: answer.gatewayTimeoutWarning?.suggestedBatchSize };
        },
      });
      sum.tookMs = Math.round(now() - started);
      sum.recordsPerSec = rate(records.length, sum.tookMs);
      return sum;
    },

    /** Imports any number of edges, like {@link records}: split, 413-aware, summed, with progress. */
    allEdges: async (options: ImportAllEdgesOptions): Promise<ImportAllEdgesResult> => {
      const { edges, callSize = 5000, batchSize, onProgress, signal, timeoutMs } = options;
      const started = now();
      const sum: ImportAllEdgesResult = {
        ok: true,
        totalEdges: edges.length,
        merged: 0,
        mismatch: 0,
        failed: 0,
        batches: 0,
        calls: 0,
        tookMs: 0,
        edgesPerSec: 0,
        errors: [],
      };
      let done = 0;
      await sendInCalls({
        items: edges,
        size: callSize,
        send: async (chunk, offset): Promise<CallOutcome> => {
          const answer = await api.edges({ edges: [...chunk], batchSize }, { signal, timeoutMs });
          sum.ok &&= answer.ok;
          sum.merged += answer.merged;
          sum.mismatch += answer.mismatch;
          sum.failed += answer.failed;
          sum.batches += answer.batches;
          sum.calls += 1;
          for (const error of answer.errors) sum.errors.push({ ...error, index: error.index + offset });
          done += chunk.length;
          onProgress?.({
            done,
            total: edges.length,
            created: sum.merged,
            failed: sum.failed,
            calls: sum.calls,
            elapsedMs: now() - started,
          });
          return {};
        },
      });
      sum.tookMs = Math.round(now() - started);
      sum.edgesPerSec = rate(edges.length, sum.tookMs);
      return sum;
    },
  };
  return api;
}
export type ImportApi = ReturnType<typeof createImportApi>;

function now(): number {
  return performance.now();
}

function rate(count: number, ms: number): number {
  return ms > 0 ? Math.round((count / ms) * 1000 * 10) / 10 : count;
}
