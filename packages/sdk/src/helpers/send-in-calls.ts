import { isApiError } from '../errors/api-error';

/** What a call's answer says about the size of the next call. */
export interface CallOutcome {
  /** A smaller size the server asked for (e.g. a gateway-timeout warning), if any. */
  suggestedSize?: number;
}

export interface SendInCallsOptions<T> {
  items: readonly T[];
  /** Items per call to start with. */
  size: number;
  /** Sends one call of items starting at `offset`. */
  send: (chunk: readonly T[], offset: number) => Promise<CallOutcome>;
}

/**
 * Sends `items` in consecutive calls of at most `size`. A 413 whose body carries
 * `suggestedBatchSize` makes it resend the same items in calls of that size (or half the
 * call when the suggestion does not shrink it); a call of one item that still gets 413
 * throws. Resolves to the number of calls that succeeded.
 */
export async function sendInCalls<T>({ items, size, send }: SendInCallsOptions<T>): Promise<number> {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('the call size must be a positive integer');
  let callSize = size;
  let offset = 0;
  let calls = 0;
  while (offset < items.length) {
    const chunk = items.slice(offset, offset + callSize);
    let outcome: CallOutcome;
    try {
      outcome = await send(chunk, offset);
    } catch (error) {
      if (isApiError(error) && error.status === 413 && chunk.length > 1) {
        callSize = smallerSize(error.body, chunk.length);
        continue;
      }
      throw error;
    }
    calls += 1;
    offset += chunk.length;
    if (
      outcome.suggestedSize !== undefined &&
      outcome.suggestedSize >= 1 &&
      outcome.suggestedSize < callSize
    ) {
      callSize = outcome.suggestedSize;
    }
  }
  return calls;
}

function smallerSize(body: unknown, current: number): number {
  const suggested =
    typeof body === 'object' && body !== null
      ? (body as { suggestedBatchSize?: unknown }).suggestedBatchSize
      : undefined;
  if (typeof suggested === 'number' && Number.isInteger(suggested) && suggested >= 1 && suggested < current) {
    return suggested;
  }
  return Math.max(1, Math.floor(current / 2));
}
