import { type StockQuery, StockResponse, TrellisError } from '@trelliscms/core';
import type { GuardedFetch } from '../shared/outbound/guarded-fetch';

/** How long a stock provider may take to answer. */
const STOCK_TIMEOUT_MS = 10_000;

/**
 * Searches stock photos through the configured provider endpoint (`STOCK_PROVIDER_URL`),
 * which answers `{items}` normalized as StockResponse. Without one, or when it fails or
 * answers another shape, 502 `stock_provider_unavailable` with a hint — never made-up results.
 */
export async function searchStock({
  providerUrl,
  query,
  outbound,
}: {
  providerUrl: string | undefined;
  query: StockQuery;
  /** The server's guarded fetcher; the provider's origin is trusted (the operator configured it), redirects are checked. */
  outbound: GuardedFetch;
}): Promise<StockResponse> {
  const unavailable = (detail: string, hint: string) =>
    TrellisError.of('stock_provider_unavailable', { detail }, { hint, extra: { provider: query.provider } });
  if (!providerUrl) {
    throw unavailable(
      `no ${query.provider} provider is configured on this server`,
      'Set STOCK_PROVIDER_URL to a stock search endpoint this server can reach (it has no network to Pexels, Unsplash or Pixabay itself), or upload images with POST /api/media/upload.',
    );
  }
  const url = new URL(providerUrl);
  url.searchParams.set('provider', query.provider);
  url.searchParams.set('q', query.q);
  if (query.orientation) url.searchParams.set('orientation', query.orientation);
  const hint = 'Check that STOCK_PROVIDER_URL is reachable from the server and answers {items}.';
  let response: Response;
  try {
    response = await outbound(url, {
      signal: AbortSignal.timeout(STOCK_TIMEOUT_MS),
      trustedOrigins: [url.origin],
    });
  } catch (error) {
    throw unavailable(`the provider endpoint could not be reached (${(error as Error).message})`, hint);
  }
  if (!response.ok) throw unavailable(`the provider endpoint answered ${response.status}`, hint);
  const parsed = StockResponse.safeParse(await response.json().catch(() => null));
  if (!parsed.success) throw unavailable('the provider endpoint answered an unexpected shape', hint);
  return parsed.data;
}
