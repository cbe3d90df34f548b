import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import {
  isAddressAllowListed,
  isHostAllowListed,
  nonPublicRange,
  normalHost,
  type OutboundPolicy,
} from './outbound-policy';

/** An address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the system resolver by default). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The `fetch` options the guarded fetcher honours. */
export interface GuardedRequestInit {
  method?: string;
  headers?: HeadersInit;
  /** A string or bytes; other body kinds are refused. */
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
  /** `follow` (default; every hop is checked), `manual` (the 3xx is the answer) or `error`. */
  redirect?: RequestRedirect;
  /**
   * Origins (`http://127.0.0.1:4000`) this request may reach whatever their address: those the
   * operator configured for this purpose (e.g. `EMBEDDINGS_URL`'s), or the server's own. A
   * redirect elsewhere is checked as usual.
   */
  trustedOrigins?: readonly string[];
}

/** A `fetch` whose destinations are checked; see {@link createGuardedFetch}. */
export type GuardedFetch = (input: string | URL, init?: GuardedRequestInit) => Promise<Response>;

/** Why the guarded fetcher gave up without an answer (network errors are passed on as they are). */
export type OutboundErrorCode =
  | 'OUTBOUND_REFUSED'
  | 'OUTBOUND_BAD_URL'
  | 'OUTBOUND_TOO_MANY_REDIRECTS'
  | 'OUTBOUND_RESPONSE_TOO_LARGE'
  | 'OUTBOUND_BAD_RESPONSE';

/** Thrown by a {@link GuardedFetch}; the message is safe to show to the user who caused the request. */
export class OutboundRequestError extends Error {
  override readonly name = 'OutboundRequestError';
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface GuardedFetchOptions {
  policy: OutboundPolicy;
  /** Upper bound of one request with all its redirects, DNS and body, in ms. */
  timeoutMs: number;
  /** Largest response body accepted (after decompression), in bytes. */
  maxResponseBytes: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Default: the system resolver (`dns.lookup`, every address). */
  resolve?: HostResolver;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);
const ALLOW_HINT = 'an operator can allow it with CMS_OUTBOUND_ALLOW';

const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The URL's host without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Rejects with the signal's reason once it aborts, else settles as `work` does. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * The addresses one hop may connect to: the URL's literal address, or every address its host
 * resolves to — each of them public, or allow-listed, unless the host itself (or the origin,
 * for this request) is trusted. Throws OUTBOUND_REFUSED otherwise.
 */
async function checkedAddresses(
  url: URL,
  options: GuardedFetchOptions,
  trustedOrigins: readonly string[],
  signal: AbortSignal,
): Promise<ResolvedAddress[]> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundRequestError(
      'OUTBOUND_BAD_URL',
      `${url.protocol} URLs are not fetched; use http or https`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundRequestError('OUTBOUND_BAD_URL', 'URLs with credentials are not fetched');
  }
  const host = bareHost(url);
  const port = portOf(url);
  const family = isIP(host);
  const addresses: ResolvedAddress[] =
    family !== 0
      ? [{ address: host, family: family === 6 ? 6 : 4 }]
      : await abortable((options.resolve ?? systemResolver)(host), signal);
  if (addresses.length === 0) {
    throw new OutboundRequestError('OUTBOUND_BAD_URL', `${host} has no address`);
  }
  if (trustedOrigins.includes(url.origin) || isHostAllowListed(options.policy, host, port)) return addresses;
  for (const { address } of addresses) {
    const range = nonPublicRange(address);
    if (range === null || isAddressAllowListed(options.policy, address, port)) continue;
    // A host name's addresses are not told to the caller (they may be internal).
    const what =
      family !== 0
        ? `${address} is a ${range} address`
        : `${normalHost(host)} resolves to a ${range} address`;
    throw new OutboundRequestError('OUTBOUND_REFUSED', `refused: ${what}, not a public one (${ALLOW_HINT})`);
  }
  return addresses;
}

/** A lookup that answers only the checked addresses, so the connection goes where the check looked. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const first = addresses[0]!;
    if (options?.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, first.address, first.family);
  }) as LookupFunction;
}

function send(
  url: URL,
  addresses: ResolvedAddress[],
  method: string,
  headers: Record<string, string>,
  body: Buffer | null,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        protocol: url.protocol,
        hostname: bareHost(url),
        port: portOf(url),
        path: `${url.pathname}${url.search}`,
        method,
        headers: body === null ? headers : { ...headers, 'content-length': String(body.length) },
        // A new connection per request: a pooled one may lead to an address checked for another.
        agent: false,
        lookup: pinnedLookup(addresses),
        signal,
      },
      resolve,
    );
    req.on('error', (error) => reject(signal.aborted ? signal.reason : error));
    req.end(body ?? undefined);
  });
}

/** Reads the body, at most `max` bytes of it (before and after decompression). */
async function readBody(response: IncomingMessage, max: number, signal: AbortSignal): Promise<Buffer> {
  const tooLarge = () =>
    new OutboundRequestError('OUTBOUND_RESPONSE_TOO_LARGE', `the response is larger than ${max} bytes`);
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      size += (chunk as Buffer).length;
      if (size > max) {
        response.destroy();
        throw tooLarge();
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
  const raw = Buffer.concat(chunks);
  const encoding = String(response.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  const decode =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? promisify(gunzip)
      : encoding === 'deflate'
        ? promisify(inflate)
        : encoding === 'br'
          ? promisify(brotliDecompress)
          : null;
  if (decode === null) return raw;
  try {
    return await decode(raw, { maxOutputLength: max });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError)
      throw tooLarge();
    throw new OutboundRequestError('OUTBOUND_BAD_RESPONSE', `the ${encoding} response does not decode`);
  }
}

function toResponse(url: URL, response: IncomingMessage, body: Buffer, isRedirected: boolean): Response {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    // The body is handed over decoded, with its own length.
    if (name === 'content-encoding' || name === 'content-length') continue;
    try {
      headers.append(name, raw[index + 1]!);
    } catch {
      // A header the Fetch API refuses is left out.
    }
  }
  const status = response.statusCode ?? 0;
  let answer: Response;
  try {
    answer = new Response(NULL_BODY.has(status) ? null : new Uint8Array(body), {
      status,
      statusText: response.statusMessage ?? '',
      headers,
    });
  } catch {
    throw new OutboundRequestError('OUTBOUND_BAD_RESPONSE', `the answer has an invalid status (${status})`);
  }
  Object.defineProperty(answer, 'url', { value: url.href });
  Object.defineProperty(answer, 'redirected', { value: isRedirected });
  return answer;
}

function encodeBody(body: GuardedRequestInit['body']): Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('the guarded fetcher sends string or byte bodies only');
}

/**
 * The one way the server makes outbound HTTP requests (serve checks, stock search, embeddings,
 * OIDC keys). A `fetch` look-alike that, on every hop (redirects are followed here, at most
 * `maxRedirects`):
 * - refuses non-http(s) URLs and URLs with credentials;
 * - resolves the host (DNS) and refuses the request unless every address is public unicast —
 *   loopback, private, link-local, unique-local, CGNAT, multicast, unspecified, reserved and
 *   IPv4-mapped forms of them are refused, in whatever encoding the URL wrote them — or
 *   allow-listed by the policy (or the origin is trusted for this request);
 * - connects to exactly the checked addresses (a pinned lookup: no second resolution to rebind);
 * - gives up after `timeoutMs` (with the caller's signal, whichever is first), and past
 *   `maxResponseBytes` of body.
 * Refusals throw {@link OutboundRequestError} without any connection being made.
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const maxRedirects = options.maxRedirects ?? 5;
  return async (input, init = {}) => {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const trustedOrigins = (init.trustedOrigins ?? []).map((origin) => new URL(origin).origin);
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new OutboundRequestError('OUTBOUND_BAD_URL', `${String(input)} is not a URL`);
    }
    let method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    let body = encodeBody(init.body);
    for (let hop = 0; ; hop += 1) {
      const addresses = await checkedAddresses(url, options, trustedOrigins, signal);
      const response = await send(url, addresses, method, headers, body, signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      const redirect = init.redirect ?? 'follow';
      if (!REDIRECTS.has(status) || location === undefined || redirect === 'manual') {
        return toResponse(url, response, await readBody(response, options.maxResponseBytes, signal), hop > 0);
      }
      response.destroy();
      if (redirect === 'error') {
        throw new OutboundRequestError('OUTBOUND_BAD_RESPONSE', `the answer is a redirect (${status})`);
      }
      if (hop >= maxRedirects) {
        throw new OutboundRequestError('OUTBOUND_TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects`);
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new OutboundRequestError('OUTBOUND_BAD_RESPONSE', 'a redirect names no valid URL');
      }
      // As fetch does: 303 (and 301/302 after a POST) continue as a GET without a body.
      if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
        method = 'GET';
        body = null;
        delete headers['content-type'];
      }
      // Credentials never follow a redirect to another origin.
      if (next.origin !== url.origin) {
        delete headers.authorization;
        delete headers.cookie;
      }
      url = next;
    }
  };
}
