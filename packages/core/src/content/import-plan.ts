/** The most records one POST /import/json takes; past it the answer is 413 too_many_records. */
export const IMPORT_MAX_RECORDS = 50_000;
/** The most edges one POST /import/edges takes; past it the answer is 413 too_many_records. */
export const IMPORT_MAX_EDGES = 200_000;
/** A typical gateway / load-balancer timeout; imports projected to outlast it get a warning. */
export const GATEWAY_TIMEOUT_MS = 25_000;

/** How to split work that is too big for one call. */
export interface SplitAdvice {
  /** Records per call. */
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
 * Advice for a request over the per-request maximum: calls of at most `max` records, as few
 * as possible, evenly sized. Null when `count <= max`.
 */
export function tooManyAdvice({ count, max }: { count: number; max: number }): SplitAdvice | null {
  if (count <= max) return null;
  const suggestedCallCount = Math.ceil(count / max);
  return { suggestedBatchSize: Math.ceil(count / suggestedCallCount), suggestedCallCount };
}

/** The warning of ImportJsonResponse.gatewayTimeoutWarning. */
export interface GatewayTimeoutWarning extends SplitAdvice {
  message: string;
}

/**
 * Warns when an import of `count` records, at `recordsPerSec`, is projected to take longer
 * than `timeoutMs` (or took longer: `tookMs`), and suggests calls small enough to finish in
 * about 80 % of it. Null when it fits.
 */
export function gatewayTimeoutWarning({
  count,
  recordsPerSec,
  tookMs = 0,
  timeoutMs = GATEWAY_TIMEOUT_MS,
}: {
  count: number;
  recordsPerSec: number;
  tookMs?: number;
  timeoutMs?: number;
}): GatewayTimeoutWarning | null {
  if (count === 0 || recordsPerSec <= 0) return null;
  const projectedMs = Math.max(tookMs, (count / recordsPerSec) * 1000);
  if (projectedMs <= timeoutMs) return null;
  const perCall = Math.max(1, Math.floor(recordsPerSec * (timeoutMs / 1000) * 0.8));
  const suggestedCallCount = Math.ceil(count / perCall);
  return {
    message: `This import of ${count} records is projected to take ${Math.round(projectedMs / 1000)} s, longer than a typical gateway timeout of ${Math.round(timeoutMs / 1000)} s. Split it into ${suggestedCallCount} calls of at most ${perCall} records.`,
    suggestedBatchSize: perCall,
    suggestedCallCount,
  };
}

/** Throughput per second for `count` items in `ms` milliseconds, rounded to one decimal. */
export function perSecond({ count, ms }: { count: number; ms: number }): number {
  return Math.round((count / Math.max(ms, 0.001)) * 1000 * 10) / 10;
}
