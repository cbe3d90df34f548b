import type { FastifyInstance, FastifyRequest } from 'fastify';

/** What one agent tool asks of the HTTP API: a route of it, called as the agent's caller. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** A path under `/api/`, its parameters already encoded. */
  url: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Extra headers (`If-Match`); the credential and site are always the caller's own. */
  headers?: Record<string, string>;
}

/** The answer of an {@link ApiRequest}: its status, parsed JSON body (null when empty) and ETag. */
export interface ApiAnswer {
  status: number;
  body: unknown;
  etag: string | null;
}

/** Calls the HTTP API as the agent's caller. */
export type ApiCall = (request: ApiRequest) => Promise<ApiAnswer>;

/**
 * An {@link ApiCall} that runs each tool's request through the app's own router (`inject`) with
 * the caller's `Authorization` and `X-Site-Id` and client address: the same authentication,
 * site resolution, permission check, rate-limit bucket, validation, hooks, audit and handlers
 * as the same request sent over HTTP. The agent can therefore do nothing its key could not do
 * with curl, and nothing the routes do is written twice.
 */
export function apiCallAs(app: FastifyInstance, request: FastifyRequest): ApiCall {
  const headers: Record<string, string> = {};
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') headers.authorization = authorization;
  const site = request.headers['x-site-id'];
  if (typeof site === 'string') headers['x-site-id'] = site;
  return async ({ method, url, query, body, headers: extra }) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const response = await app.inject({
      method,
      url: search.size > 0 ? `${url}?${search}` : url,
      headers: { ...extra, ...headers },
      remoteAddress: request.ip,
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    const text = response.body;
    let parsed: unknown = null;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const etag = response.headers.etag;
    return { status: response.statusCode, body: parsed, etag: typeof etag === 'string' ? etag : null };
  };
}
