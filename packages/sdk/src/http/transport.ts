import ky, {
  type HTTPError,
  isHTTPError,
  isTimeoutError,
  type KyInstance,
  type Options as KyOptions,
} from 'ky';
import type { z } from 'zod';
import { ApiError } from '../errors/api-error';
import { ConnectionError } from '../errors/connection-error';
import { SchemaError } from '../errors/schema-error';
import { isRetryable } from './retry-policy';

/** The HTTP methods the API uses. */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A query string value; `undefined` entries are left out. */
export type QueryValue = string | number | boolean | undefined | null;

/** One page of a list: its items and how many records match in all (`X-Total-Count`). */
export interface ListPage<T> {
  items: T[];
  total: number;
}

/** Per-call options every SDK method accepts as its last argument. */
export interface CallOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call (each attempt). */
  timeoutMs?: number;
  /**
   * Sent as `If-Match`: the `ETag` of the read a write is based on; the server answers 409
   * `version_conflict` (an `ApiError`) instead of writing over a newer change.
   */
  ifMatch?: string;
  /**
   * Sent as `Idempotency-Key` (`true`: a new UUID for this call). The server answers a repeat
   * of the same request with the same key with its first answer for 24 h and writes nothing
   * again, so the SDK also retries such a write after a lost answer or a 500/502/504, as it
   * does reads.
   */
  idempotencyKey?: string | true;
}

/** One request, as the namespaces describe it. */
export interface RequestSpec<S extends z.ZodType> extends CallOptions {
  method: HttpMethod;
  /** The path under `/api/`, without a leading slash, its segments already encoded. */
  path: string;
  /** Checks and types the 2xx body. */
  schema: S;
  json?: unknown;
  body?: FormData;
  query?: Record<string, QueryValue>;
}

/** The retry settings of a client (see the README). */
export interface RetryOptions {
  /** How many times a retryable failure is retried. Default 2. */
  limit?: number;
  /** The longest `Retry-After` wait, in ms; a longer one is cut to this. Default 60000. */
  maxRetryAfterMs?: number;
  /** The delay before retry `n` (1-based) when the server gave no `Retry-After`. Default `300 * 2 ** (n - 1)` ms. */
  delayMs?: (attempt: number) => number;
  /** The longest delay between attempts, in ms. Default 10000. */
  backoffLimitMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string;
  token?: () => Promise<string> | string;
  timeoutMs: number;
  retry: RetryOptions | number | false;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  onRetryWait?: (wait: { status: number; method: string; url: string; waitMs: number }) => void;
}

/** The wait a `Retry-After` header asks for, in ms (seconds or an HTTP date), or null. */
function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const ERROR_BODY = Symbol('trellisErrorBody');
type HttpErrorWithBody = HTTPError & { [ERROR_BODY]?: unknown };

/**
 * The one place requests are made: authentication, `X-Site-Id`, retries, timeouts, error
 * mapping and response parsing. Namespaces only describe requests.
 */
export class Transport {
  readonly siteId: string | undefined;
  /** `<baseUrl>/api/` */
  readonly prefixUrl: string;
  readonly #ky: KyInstance;

  private constructor(instance: KyInstance, prefixUrl: string, siteId: string | undefined) {
    this.#ky = instance;
    this.prefixUrl = prefixUrl;
    this.siteId = siteId;
  }

  /** A transport for `options`, not scoped to a site. */
  static create(options: TransportOptions): Transport {
    const retry = normalizeRetry(options.retry);
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const token = options.token;
    const prefixUrl = `${options.baseUrl.replace(/\/+$/, '')}/api/`;
    const kyOptions: KyOptions = {
      prefixUrl,
      headers,
      timeout: options.timeoutMs,
      fetch: options.fetch,
      retry: {
        limit: retry.limit,
        methods: ['get', 'post', 'put', 'patch', 'delete', 'head'],
        statusCodes: [409, 429, 500, 502, 503, 504],
        afterStatusCodes: [409, 429, 503],
        maxRetryAfter: retry.maxRetryAfterMs,
        backoffLimit: retry.backoffLimitMs,
        delay: retry.delayMs,
      },
      hooks: {
        afterResponse: options.onRetryWait
          ? [
              (request, _options, response) => {
                if (retry.limit === 0 || (response.status !== 429 && response.status !== 503)) return;
                const wait = retryAfterMs(response.headers.get('retry-after'));
                if (wait === null) return;
                options.onRetryWait?.({
                  status: response.status,
                  method: request.method,
                  url: request.url,
                  waitMs: Math.min(wait, retry.maxRetryAfterMs),
                });
              },
            ]
          : [],
        beforeRequest: token
          ? [
              async (request) => {
                request.headers.set('authorization', `Bearer ${await token()}`);
              },
            ]
          : [],
        beforeError: [
          async (error) => {
            (error as HttpErrorWithBody)[ERROR_BODY] = await readBody(error.response);
            return error;
          },
        ],
      },
    };
    return new Transport(ky.create(kyOptions), prefixUrl, undefined);
  }

  /** The same transport, sending `X-Site-Id: siteId` on every request. */
  withSite(siteId: string): Transport {
    return new Transport(this.#ky.extend({ headers: { 'x-site-id': siteId } }), this.prefixUrl, siteId);
  }

  /** Sends one request and returns its parsed body; throws ApiError, SchemaError or ConnectionError. */
  async request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    const { response, body } = await this.#fetch(spec);
    return this.#parse(spec, response, body);
  }

  #parse<S extends z.ZodType>(spec: RequestSpec<S>, response: Response, body: unknown): z.output<S> {
    const parsed = spec.schema.safeParse(body);
    if (!parsed.success) {
      throw new SchemaError({
        method: spec.method.toUpperCase(),
        url: response.url,
        status: response.status,
        body,
        issues: parsed.error.issues.map((issue) => ({
          path: issue.path.map(String).join('.'),
          message: issue.message,
        })),
      });
    }
    return parsed.data;
  }

  /**
   * Sends a list request and returns its parsed items with the count of every match, read from
   * the `X-Total-Count` header (the items' count when a server does not send it).
   */
  async requestPage<S extends z.ZodType<unknown[]>>(
    spec: RequestSpec<S>,
  ): Promise<ListPage<z.output<S>[number]>> {
    const { response, body } = await this.#fetch(spec);
    const items = this.#parse(spec, response, body) as z.output<S>[number][];
    const header = Number(response.headers.get('x-total-count'));
    return {
      items,
      total:
        Number.isInteger(header) && header >= 0 && response.headers.has('x-total-count')
          ? header
          : items.length,
    };
  }

  /** Sends one request whose answer body is not used (e.g. a 204). */
  async send(spec: Omit<RequestSpec<z.ZodType>, 'schema'>): Promise<void> {
    await this.#fetch(spec);
  }

  async #fetch(spec: Omit<RequestSpec<z.ZodType>, 'schema'>): Promise<{ response: Response; body: unknown }> {
    const method = spec.method.toUpperCase();
    const headers: Record<string, string> = {};
    if (spec.ifMatch !== undefined) headers['if-match'] = spec.ifMatch;
    if (spec.idempotencyKey !== undefined) {
      headers['idempotency-key'] = spec.idempotencyKey === true ? crypto.randomUUID() : spec.idempotencyKey;
    }
    const isIdempotent = headers['idempotency-key'] !== undefined;
    let response: Response;
    try {
      response = await this.#ky(spec.path, {
        method: spec.method,
        json: spec.json,
        body: spec.body,
        headers,
        searchParams: toSearchParams(spec.query),
        signal: spec.signal,
        retry: { shouldRetry: ({ error }) => shouldRetry(error, method, isIdempotent) },
        ...(spec.timeoutMs === undefined ? {} : { timeout: spec.timeoutMs }),
      });
    } catch (error) {
      throw toSdkError(error, method, this.prefixUrl + spec.path);
    }
    return { response, body: await readBody(response) };
  }
}

function normalizeRetry(retry: TransportOptions['retry']): Required<RetryOptions> {
  const base: Required<RetryOptions> = {
    limit: 2,
    maxRetryAfterMs: 60_000,
    delayMs: (attempt) => 300 * 2 ** (attempt - 1),
    backoffLimitMs: 10_000,
  };
  if (retry === false) return { ...base, limit: 0 };
  if (typeof retry === 'number') return { ...base, limit: retry };
  return {
    limit: retry.limit ?? base.limit,
    maxRetryAfterMs: retry.maxRetryAfterMs ?? base.maxRetryAfterMs,
    delayMs: retry.delayMs ?? base.delayMs,
    backoffLimitMs: retry.backoffLimitMs ?? base.backoffLimitMs,
  };
}

function toSearchParams(query: RequestSpec<z.ZodType>['query']): URLSearchParams | undefined {
  if (!query) return undefined;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(key, String(value));
  }
  return params;
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  let text: string;
  try {
    text = await response.text();
  } catch {
    return undefined;
  }
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** ky's `shouldRetry`: `false` stops; `undefined` lets ky apply its delay and Retry-After rules. */
function shouldRetry(error: Error, method: string, isIdempotent: boolean): boolean | undefined {
  if (isTimeoutError(error)) return false;
  if (isHTTPError(error)) {
    const body = (error as HttpErrorWithBody)[ERROR_BODY];
    const code = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
    const retryable = isRetryable({
      method,
      status: error.response.status,
      code: typeof code === 'string' ? code : undefined,
      isIdempotent,
    });
    return retryable ? undefined : false;
  }
  return isRetryable({ method, status: undefined, code: undefined, isIdempotent });
}

function toSdkError(error: unknown, method: string, path: string): unknown {
  if (isHTTPError(error)) {
    return new ApiError({
      status: error.response.status,
      method,
      url: error.request.url,
      body: (error as HttpErrorWithBody)[ERROR_BODY],
      headers: error.response.headers,
    });
  }
  if (isTimeoutError(error)) {
    return new ConnectionError({ method, url: error.request.url, isTimeout: true, cause: error });
  }
  if (error instanceof TypeError || isSystemError(error)) {
    return new ConnectionError({ method, url: path, isTimeout: false, cause: error });
  }
  return error;
}

function isSystemError(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
  );
}
