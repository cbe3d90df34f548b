import {
  MAX_MEDIA_BYTES,
  type StockCredit,
  type StockItem,
  type StockProvider,
  type StockQuery,
  StockResponse,
  TrellisError,
} from '@trelliscms/core';
import type { Config } from '../config';
import type { GuardedFetch } from '../shared/outbound/guarded-fetch';

/** How long a stock provider may take to answer a search or a look-up. */
const STOCK_TIMEOUT_MS = 10_000;
/** Results per page when the query names none. */
const DEFAULT_PER_PAGE = 20;

export type StockConfig = Pick<
  Config,
  | 'STOCK_PROVIDER_URL'
  | 'PEXELS_API_KEY'
  | 'PEXELS_URL'
  | 'UNSPLASH_ACCESS_KEY'
  | 'UNSPLASH_URL'
  | 'PIXABAY_API_KEY'
  | 'PIXABAY_URL'
>;

/** One photo as a provider's look-up answers it: the search item, where the full-size file is, and the credit. */
export interface StockPhoto {
  item: StockItem;
  /** The full-size file to store on import. */
  downloadUrl: string;
  credit: StockCredit;
}

/** A provider's own API: how to ask it, and how its answers map to Trellis's shapes. */
interface StockAdapter {
  provider: StockProvider;
  /** The variable that holds its key (named in hints). */
  keyVariable: string;
  license: string;
  searchRequest(query: StockQuery, perPage: number): { url: URL; headers: Record<string, string> };
  parseSearch(body: unknown, query: StockQuery, perPage: number): StockResponse;
  photoRequest(id: string): { url: URL; headers: Record<string, string> };
  /** The photo of a look-up answer; null when the answer holds none (an unknown id). */
  parsePhoto(body: unknown): { item: StockItem; downloadUrl: string } | null;
  /**
   * What the provider asks to be told when a photo is downloaded (Unsplash's
   * `download_location`): answers the URL of the file to fetch, or null to use `downloadUrl`.
   */
  trackDownload?(body: unknown): { url: URL; headers: Record<string, string> } | null;
}

/** Thrown by the parsers when an answer is not in the provider's format. */
class UnexpectedAnswer extends Error {}

const obj = (value: unknown): Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UnexpectedAnswer();
  return value as Record<string, unknown>;
};
const str = (value: unknown): string => {
  if (typeof value !== 'string' || value === '') throw new UnexpectedAnswer();
  return value;
};
const optStr = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const int = (value: unknown): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new UnexpectedAnswer();
  return Math.round(value);
};
const arr = (value: unknown): unknown[] => {
  if (!Array.isArray(value)) throw new UnexpectedAnswer();
  return value;
};
const idOf = (value: unknown): string => {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return str(value);
};

/** `base` + `path` (the base keeps its own path: `https://api.pexels.com/v1` + `/search`). */
function endpoint(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}${path}`);
}

function pexelsAdapter(config: StockConfig, key: string): StockAdapter {
  const headers = { authorization: key };
  const toItem = (value: unknown): StockItem => {
    const photo = obj(value);
    const src = obj(photo.src);
    return {
      id: idOf(photo.id),
      url: str(src.large2x ?? src.large ?? src.original),
      thumb: str(src.medium ?? src.small ?? src.tiny),
      photographer: optStr(photo.photographer),
      photographerUrl: optStr(photo.photographer_url),
      pageUrl: str(photo.url),
      alt: optStr(photo.alt),
      source: 'pexels',
      width: int(photo.width),
      height: int(photo.height),
    };
  };
  return {
    provider: 'pexels',
    keyVariable: 'PEXELS_API_KEY',
    license: 'Pexels License (https://www.pexels.com/license/)',
    searchRequest(query, perPage) {
      const url = endpoint(config.PEXELS_URL, '/search');
      url.searchParams.set('query', query.q);
      url.searchParams.set('page', String(query.page ?? 1));
      url.searchParams.set('per_page', String(perPage));
      if (query.orientation) url.searchParams.set('orientation', query.orientation);
      return { url, headers };
    },
    parseSearch(body) {
      const answer = obj(body);
      return {
        items: arr(answer.photos).map(toItem),
        page: int(answer.page) || 1,
        perPage: int(answer.per_page) || 1,
        total: int(answer.total_results),
      };
    },
    photoRequest: (id) => ({
      url: endpoint(config.PEXELS_URL, `/photos/${encodeURIComponent(id)}`),
      headers,
    }),
    parsePhoto(body) {
      const item = toItem(body);
      return { item, downloadUrl: str(obj(obj(body).src).original) };
    },
  };
}

/** Unsplash pages hold at most 30 photos. */
const UNSPLASH_MAX_PER_PAGE = 30;

function unsplashAdapter(config: StockConfig, key: string): StockAdapter {
  const headers = { authorization: `Client-ID ${key}`, 'accept-version': 'v1' };
  const toItem = (value: unknown): StockItem => {
    const photo = obj(value);
    const urls = obj(photo.urls);
    const user = photo.user === undefined || photo.user === null ? {} : obj(photo.user);
    const userLinks = user.links === undefined || user.links === null ? {} : obj(user.links);
    const links = photo.links === undefined || photo.links === null ? {} : obj(photo.links);
    return {
      id: str(photo.id),
      url: str(urls.regular ?? urls.full),
      thumb: str(urls.small ?? urls.thumb),
      photographer: optStr(user.name) ?? optStr(user.username),
      photographerUrl: optStr(userLinks.html),
      pageUrl: optStr(links.html) ?? `https://unsplash.com/photos/${str(photo.id)}`,
      alt: optStr(photo.alt_description) ?? optStr(photo.description),
      source: 'unsplash',
      width: int(photo.width),
      height: int(photo.height),
    };
  };
  return {
    provider: 'unsplash',
    keyVariable: 'UNSPLASH_ACCESS_KEY',
    license: 'Unsplash License (https://unsplash.com/license)',
    searchRequest(query, perPage) {
      const url = endpoint(config.UNSPLASH_URL, '/search/photos');
      url.searchParams.set('query', query.q);
      url.searchParams.set('page', String(query.page ?? 1));
      url.searchParams.set('per_page', String(Math.min(perPage, UNSPLASH_MAX_PER_PAGE)));
      // Unsplash calls a square photo `squarish`.
      if (query.orientation)
        url.searchParams.set('orientation', query.orientation === 'square' ? 'squarish' : query.orientation);
      return { url, headers };
    },
    parseSearch(body, query, perPage) {
      const answer = obj(body);
      return {
        items: arr(answer.results).map(toItem),
        page: query.page ?? 1,
        perPage: Math.min(perPage, UNSPLASH_MAX_PER_PAGE),
        total: int(answer.total),
      };
    },
    photoRequest: (id) => ({
      url: endpoint(config.UNSPLASH_URL, `/photos/${encodeURIComponent(id)}`),
      headers,
    }),
    parsePhoto(body) {
      const item = toItem(body);
      const urls = obj(obj(body).urls);
      return { item, downloadUrl: str(urls.full ?? urls.raw) };
    },
    trackDownload(body) {
      // The API guidelines ask for `links.download_location` to be called on each download;
      // it answers `{url}`, the file to fetch.
      const links = obj(body).links;
      const location =
        links && typeof links === 'object'
          ? optStr((links as Record<string, unknown>).download_location)
          : null;
      if (!location) return null;
      return { url: rebase(location, config.UNSPLASH_URL, 'https://api.unsplash.com'), headers };
    },
  };
}

/**
 * `location` (an API URL the provider answered with) on the configured base instead of the
 * provider's own origin, so that a proxy or test base URL is used for it too.
 */
function rebase(location: string, base: string, providerOrigin: string): URL {
  const url = new URL(location);
  if (url.origin !== providerOrigin || new URL(base).origin === providerOrigin) return url;
  const rebased = endpoint(base, url.pathname);
  rebased.search = url.search;
  return rebased;
}

function pixabayAdapter(config: StockConfig, key: string): StockAdapter {
  const toItem = (value: unknown): StockItem => {
    const hit = obj(value);
    const user = optStr(hit.user);
    const userId = typeof hit.user_id === 'number' ? hit.user_id : null;
    return {
      id: idOf(hit.id),
      url: str(hit.largeImageURL ?? hit.webformatURL),
      thumb: str(hit.webformatURL ?? hit.previewURL),
      photographer: user,
      photographerUrl: user && userId !== null ? `https://pixabay.com/users/${user}-${userId}/` : null,
      pageUrl: str(hit.pageURL),
      alt: optStr(hit.tags),
      source: 'pixabay',
      width: int(hit.imageWidth),
      height: int(hit.imageHeight),
    };
  };
  const base = (params: Record<string, string>) => {
    const url = endpoint(config.PIXABAY_URL, '/');
    url.searchParams.set('key', key);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return { url, headers: {} };
  };
  return {
    provider: 'pixabay',
    keyVariable: 'PIXABAY_API_KEY',
    license: 'Pixabay Content License (https://pixabay.com/service/license-summary/)',
    searchRequest(query, perPage) {
      // Pixabay pages hold 3 to 200 hits; it has no square orientation (all orientations are asked).
      const params: Record<string, string> = {
        q: query.q,
        image_type: 'photo',
        safesearch: 'true',
        page: String(query.page ?? 1),
        per_page: String(Math.max(3, perPage)),
      };
      if (query.orientation === 'landscape') params.orientation = 'horizontal';
      if (query.orientation === 'portrait') params.orientation = 'vertical';
      return base(params);
    },
    parseSearch(body, query, perPage) {
      const answer = obj(body);
      return {
        items: arr(answer.hits).slice(0, perPage).map(toItem),
        page: query.page ?? 1,
        perPage,
        total: int(answer.totalHits),
      };
    },
    photoRequest: (id) => base({ id }),
    parsePhoto(body) {
      const hits = arr(obj(body).hits);
      if (hits.length === 0) return null;
      const item = toItem(hits[0]);
      return { item, downloadUrl: str(obj(hits[0]).largeImageURL) };
    },
  };
}

/** The adapter of `provider` when its key is configured, else null. */
function adapterOf(config: StockConfig, provider: StockProvider): StockAdapter | null {
  if (provider === 'pexels')
    return config.PEXELS_API_KEY ? pexelsAdapter(config, config.PEXELS_API_KEY) : null;
  if (provider === 'unsplash')
    return config.UNSPLASH_ACCESS_KEY ? unsplashAdapter(config, config.UNSPLASH_ACCESS_KEY) : null;
  return config.PIXABAY_API_KEY ? pixabayAdapter(config, config.PIXABAY_API_KEY) : null;
}

const KEY_VARIABLE: Record<StockProvider, string> = {
  pexels: 'PEXELS_API_KEY',
  unsplash: 'UNSPLASH_ACCESS_KEY',
  pixabay: 'PIXABAY_API_KEY',
};

function unavailable(provider: StockProvider, detail: string, hint: string): TrellisError {
  return TrellisError.of('stock_provider_unavailable', { detail }, { hint, extra: { provider } });
}

/** The provider's own words for a failed answer: its JSON `error`/`errors`, or the start of its text. */
async function providerMessage(response: Response): Promise<string> {
  const text = (await response.text().catch(() => '')).trim();
  try {
    const body = JSON.parse(text) as { error?: unknown; errors?: unknown; message?: unknown };
    const message = body.error ?? body.errors ?? body.message;
    if (typeof message === 'string') return message.slice(0, 300);
    if (Array.isArray(message)) return message.map(String).join('; ').slice(0, 300);
  } catch {
    // not JSON: Pixabay answers `[ERROR 400] Invalid or missing API key`
  }
  return text.slice(0, 300);
}

/** Asks a provider's API (its configured origin is trusted: the operator set it), parsing JSON. */
async function askProvider(
  adapter: StockAdapter,
  request: { url: URL; headers: Record<string, string> },
  outbound: GuardedFetch,
  trustedBase: string,
): Promise<{ status: number; body: unknown }> {
  const hint = `Check ${adapter.keyVariable} and that the provider is reachable from the server.`;
  let response: Response;
  try {
    response = await outbound(request.url, {
      headers: { accept: 'application/json', ...request.headers },
      signal: AbortSignal.timeout(STOCK_TIMEOUT_MS),
      trustedOrigins: [new URL(trustedBase).origin],
    });
  } catch (error) {
    throw unavailable(
      adapter.provider,
      `${adapter.provider} could not be reached (${(error as Error).message})`,
      hint,
    );
  }
  if (response.status === 404) return { status: 404, body: null };
  if (!response.ok) {
    const message = await providerMessage(response);
    throw unavailable(
      adapter.provider,
      `${adapter.provider} answered ${response.status}${message ? `: ${message}` : ''}`,
      hint,
    );
  }
  const body = await response.json().catch(() => undefined);
  if (body === undefined) throw unavailable(adapter.provider, `${adapter.provider} answered no JSON`, hint);
  return { status: response.status, body };
}

function baseOf(config: StockConfig, provider: StockProvider): string {
  return provider === 'pexels'
    ? config.PEXELS_URL
    : provider === 'unsplash'
      ? config.UNSPLASH_URL
      : config.PIXABAY_URL;
}

/**
 * Searches stock photos: the provider's own API when its key is configured (PEXELS_API_KEY,
 * UNSPLASH_ACCESS_KEY, PIXABAY_API_KEY), its answer normalised to StockResponse; else the
 * forward endpoint `STOCK_PROVIDER_URL` (which answers `{items}` itself); else 502
 * `stock_provider_unavailable` with a hint — never made-up results.
 */
export async function searchStock({
  config,
  query,
  outbound,
}: {
  config: StockConfig;
  query: StockQuery;
  /** The server's guarded fetcher; the provider's configured origin is trusted, redirects are checked. */
  outbound: GuardedFetch;
}): Promise<StockResponse> {
  const perPage = query.perPage ?? DEFAULT_PER_PAGE;
  const adapter = adapterOf(config, query.provider);
  if (adapter) {
    const { body } = await askProvider(
      adapter,
      adapter.searchRequest(query, perPage),
      outbound,
      baseOf(config, query.provider),
    );
    try {
      return adapter.parseSearch(body, query, perPage);
    } catch {
      throw unavailable(
        query.provider,
        `${query.provider} answered a search in an unexpected shape`,
        `Check that ${baseOf(config, query.provider)} is the ${query.provider} API.`,
      );
    }
  }
  if (!config.STOCK_PROVIDER_URL) {
    throw unavailable(
      query.provider,
      `no ${query.provider} key is configured on this server`,
      `Set ${KEY_VARIABLE[query.provider]} (or STOCK_PROVIDER_URL to a search endpoint answering {items}), or upload images with POST /api/media/upload.`,
    );
  }
  return forwardSearch(config.STOCK_PROVIDER_URL, query, outbound);
}

/** The forward endpoint of STOCK_PROVIDER_URL: `?provider=&q=&orientation=&page=&perPage=`, answering `{items}`. */
async function forwardSearch(
  providerUrl: string,
  query: StockQuery,
  outbound: GuardedFetch,
): Promise<StockResponse> {
  const url = new URL(providerUrl);
  url.searchParams.set('provider', query.provider);
  url.searchParams.set('q', query.q);
  if (query.orientation) url.searchParams.set('orientation', query.orientation);
  if (query.page) url.searchParams.set('page', String(query.page));
  if (query.perPage) url.searchParams.set('perPage', String(query.perPage));
  const hint = 'Check that STOCK_PROVIDER_URL is reachable from the server and answers {items}.';
  let response: Response;
  try {
    response = await outbound(url, {
      signal: AbortSignal.timeout(STOCK_TIMEOUT_MS),
      trustedOrigins: [url.origin],
    });
  } catch (error) {
    throw unavailable(
      query.provider,
      `the provider endpoint could not be reached (${(error as Error).message})`,
      hint,
    );
  }
  if (!response.ok)
    throw unavailable(query.provider, `the provider endpoint answered ${response.status}`, hint);
  const parsed = StockResponse.safeParse(await response.json().catch(() => null));
  if (!parsed.success)
    throw unavailable(query.provider, 'the provider endpoint answered an unexpected shape', hint);
  return parsed.data;
}

/**
 * Looks one photo up by its id in the provider's API (its key must be configured: the forward
 * endpoint has no look-up): its full-size file and its credit. 404 `not_found` for an id the
 * provider does not know.
 */
export async function findStockPhoto({
  config,
  provider,
  id,
  outbound,
}: {
  config: StockConfig;
  provider: StockProvider;
  id: string;
  outbound: GuardedFetch;
}): Promise<StockPhoto> {
  const adapter = adapterOf(config, provider);
  if (!adapter) {
    throw unavailable(
      provider,
      `no ${provider} key is configured on this server`,
      `Set ${KEY_VARIABLE[provider]} to import from ${provider} (STOCK_PROVIDER_URL serves searches only), or upload the image with POST /api/media/upload.`,
    );
  }
  const base = baseOf(config, provider);
  const { status, body } = await askProvider(adapter, adapter.photoRequest(id), outbound, base);
  const notFound = () => TrellisError.of('not_found', { resource: `Stock photo \`${id}\` of ${provider}` });
  if (status === 404) throw notFound();
  let photo: { item: StockItem; downloadUrl: string } | null;
  try {
    photo = adapter.parsePhoto(body);
  } catch {
    throw unavailable(
      provider,
      `${provider} answered a photo in an unexpected shape`,
      `Check that ${base} is the ${provider} API.`,
    );
  }
  if (!photo) throw notFound();
  let downloadUrl = photo.downloadUrl;
  const tracking = adapter.trackDownload?.(body);
  if (tracking) {
    const tracked = await askProvider(adapter, tracking, outbound, base);
    const url =
      tracked.body && typeof tracked.body === 'object'
        ? optStr((tracked.body as { url?: unknown }).url)
        : null;
    if (url) downloadUrl = url;
  }
  return {
    item: photo.item,
    downloadUrl,
    credit: {
      provider,
      id: photo.item.id,
      photographer: photo.item.photographer,
      photographerUrl: photo.item.photographerUrl ?? null,
      pageUrl: photo.item.pageUrl ?? null,
      license: adapter.license,
    },
  };
}

/**
 * Fetches a photo's full-size file through the guarded fetcher. The URL came from the
 * provider's answer, so its host is not trusted: it must be public (or in CMS_OUTBOUND_ALLOW).
 */
export async function downloadStockPhoto({
  photo,
  outbound,
  timeoutMs,
}: {
  photo: StockPhoto;
  outbound: GuardedFetch;
  timeoutMs: number;
}): Promise<Buffer> {
  const provider = photo.credit.provider;
  const hint = 'Retry later, or download the image yourself and upload it with POST /api/media/upload.';
  let response: Response;
  try {
    response = await outbound(photo.downloadUrl, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw unavailable(provider, `the photo file could not be fetched (${(error as Error).message})`, hint);
  }
  if (!response.ok) throw unavailable(provider, `the photo file answered ${response.status}`, hint);
  const content = Buffer.from(await response.arrayBuffer());
  if (content.length > MAX_MEDIA_BYTES) throw TrellisError.of('media_too_large', { limit: MAX_MEDIA_BYTES });
  return content;
}
