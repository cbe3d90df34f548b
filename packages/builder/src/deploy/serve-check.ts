import type { ServeCheck } from '@trelliscms/core';

/**
 * Probes a URL with a real GET request: `ok` when the answer is 2xx within `timeoutMs`
 * (default 5 000). Never throws; a network error or timeout gives `ok: false`, `status: 0`
 * and the reason in `error`.
 */
export async function serveCheck(url: string, options: { timeoutMs?: number } = {}): Promise<ServeCheck> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
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
