import type { ServeCheck } from '@trelliscms/core';

/** The part of `fetch` a serve check uses: a GET that follows redirects, with a timeout signal. */
export type ServeCheckFetch = (
  url: string,
  init: { redirect: 'follow'; signal: AbortSignal },
) => Promise<Response>;

/**
 * Probes a URL with a real GET request: `ok` when the answer is 2xx within `timeoutMs`
 * (default 5 000). Never throws; a network error, a refused destination or a timeout gives
 * `ok: false`, `status: 0` and the reason in `error`. `fetch` (default the global one) is how
 * the request is made: a server passes its guarded fetcher, so that a URL a user chose cannot
 * reach internal addresses.
 */
export async function serveCheck(
  url: string,
  options: { timeoutMs?: number; fetch?: ServeCheckFetch } = {},
): Promise<ServeCheck> {
  const started = performance.now();
  const fetcher: ServeCheckFetch = options.fetch ?? fetch;
  try {
    const response = await fetcher(url, {
      redirect: 'follow',
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
    await response.arrayBuffer();
    return {
      ok: response.ok,
      status: response.status,
      durationMs: Math.round(performance.now() - started),
      url,
      error: response.ok ? '' : `HTTP ${response.status}`,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return {
      ok: false,
      status: 0,
      durationMs: Math.round(performance.now() - started),
      url,
      error: cause ? `${(error as Error).message} (${cause})` : String((error as Error).message ?? error),
    };
  }
}
