import { IMPORT_JSON_BATCH } from '../schemas/import';

/** The most records one POST /import/json takes; past it the answer is 413 too_many_records. */
export const IMPORT_MAX_RECORDS = 50_000;
/** The most edges one POST /import/edges takes; past it the answer is 413 too_many_records. */
export const IMPORT_MAX_EDGES = 200_000;
/** A typical gateway / load-balancer timeout; imports projected to outlast it get a warning. */
export const GATEWAY_TIMEOUT_MS = 25_000;

/**
 * How to split work that is too big for one call: `suggestedCallCount` calls of at most
 * `suggestedBatchSize` items each, every call sent with `batchSize: suggestedBatchSize`.
 * `suggestedBatchSize` is always a valid `batchSize` of the endpoint (1 to 500 records, 1 to
 * 2000 edges), and `suggestedBatchSize × suggestedCallCount` covers the items with less than one
 * call to spare.
 */
export interface SplitAdvice {
  /** Items per call, and the `batchSize` to send with each. */
  suggestedBatchSize: number;
  suggestedCallCount: number;
}

/** Splits `count` items into `batchSize` chunks: the number of batches. */
export function batchCount({ count, batchSize }: { count: number; batchSize: number }): number {
  return count === 0 ? 0 : Math.ceil(count / batchSize);
}

/** The half-open index ranges `[start, end)` of each batch. */
export function batchRanges({
  count,
  batchSize,
}: {
  count: number;
  batchSize: number;
}): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < count; start += batchSize)
    ranges.push([start, Math.min(count, start + batchSize)]);
  return ranges;
}

/**
 * `count` items in as few calls of at most `perCall` (clamped to 1..`maxBatchSize`) as possible,
 * evenly sized: each call one batch. {@link SplitAdvice} of `count` ≥ 1.
 */
export function splitAdvice({
  count,
  perCall,
  maxBatchSize,
}: {
  count: number;
  perCall: number;
  maxBatchSize: number;
}): SplitAdvice {
  const size = Math.max(1, Math.min(maxBatchSize, Math.floor(perCall)));
  const suggestedCallCount = Math.max(1, Math.ceil(count / size));
  return { suggestedBatchSize: Math.ceil(count / suggestedCallCount), suggestedCallCount };
}

/**
 * Advice for a request over the per-request maximum `max`: calls of one full batch each (at
 * most `maxBatchSize`, the endpoint's largest `batchSize`: {@link IMPORT_JSON_BATCH}.max for
 * records, `IMPORT_EDGES_BATCH.max` for edges), as few as possible, evenly sized. Null
 * when `count <= max`.
 */
export function tooManyAdvice({
  count,
  max,
  maxBatchSize = IMPORT_JSON_BATCH.max,
}: {
  count: number;
  max: number;
  maxBatchSize?: number;
}): SplitAdvice | null {
  if (count <= max) return null;
  return splitAdvice({ count, perCall: Math.min(max, maxBatchSize), maxBatchSize });
}

/** The warning of ImportJsonResponse.gatewayTimeoutWarning. */
export interface GatewayTimeoutWarning extends SplitAdvice {
  message: string;
}

/**
 * Warns when an import of `count` records, at `recordsPerSec`, is projected to take longer
 * than `timeoutMs` (or took longer: `tookMs`, whose rate then counts), and suggests calls small
 * enough to finish in about 80 % of it, each one batch of a valid `batchSize` (at most
 * `maxBatchSize`, default {@link IMPORT_JSON_BATCH}.max). Null when it fits.
 */
export function gatewayTimeoutWarning({
  count,
  recordsPerSec,
  tookMs = 0,
  timeoutMs = GATEWAY_TIMEOUT_MS,
  maxBatchSize = IMPORT_JSON_BATCH.max,
}: {
  count: number;
  recordsPerSec: number;
  tookMs?: number;
  timeoutMs?: number;
  maxBatchSize?: number;
}): GatewayTimeoutWarning | null {
  if (count === 0 || recordsPerSec <= 0) return null;
  const projectedMs = Math.max(tookMs, (count / recordsPerSec) * 1000);
  if (projectedMs <= timeoutMs) return null;
  // The slower of the estimate and what this import measured.
  const rate = (count / projectedMs) * 1000;
  const advice = splitAdvice({ count, perCall: rate * (timeoutMs / 1000) * 0.8, maxBatchSize });
  return {
    message: `This import of ${count} records is projected to take ${Math.round(projectedMs / 1000)} s, longer than a typical gateway timeout of ${Math.round(timeoutMs / 1000)} s. Split it into ${advice.suggestedCallCount} calls of at most ${advice.suggestedBatchSize} records (batchSize ${advice.suggestedBatchSize}).`,
    ...advice,
  };
}

/** Throughput per second for `count` items in `ms` milliseconds, rounded to one decimal. */
export function perSecond({ count, ms }: { count: number; ms: number }): number {
  return Math.round((count / Math.max(ms, 0.001)) * 1000 * 10) / 10;
}
