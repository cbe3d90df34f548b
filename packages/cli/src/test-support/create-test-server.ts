import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the test server saw it. */
export interface SeenRequest {
  method: string;
  /** Path with query string, e.g. `/api/content/post?limit=3`. */
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  at: number;
}

/** What a handler answers: a status, an optional JSON body and headers. */
export interface CannedAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (request: SeenRequest) => CannedAnswer | Promise<CannedAnswer>;

/** A real HTTP server on 127.0.0.1, port 0, answering from `routes` keyed `METHOD /path`. */
export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Requests whose key (`METHOD /path`, no query) is `key`. */
  hits(key: string): SeenRequest[];
  close(): Promise<void>;
}

export async function createTestServer(routes: Record<string, Handler>): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {}
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body,
      at: Date.now(),
    };
    requests.push(seen);
    const key = `${seen.method} ${seen.url.split('?')[0]}`;
    const handler = routes[key];
    const answer: CannedAnswer = handler
      ? await handler(seen)
      : { status: 404, body: { error: `No route ${key}`, code: 'route_not_found' } };
    const status = answer.status ?? 200;
    res.statusCode = status;
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    if (answer.body === undefined || status === 204) {
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    hits: (key) => requests.filter((request) => `${request.method} ${request.url.split('?')[0]}` === key),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Answers in turn from `answers`; the last one repeats. */
export function sequence(...answers: CannedAnswer[]): Handler {
  let index = 0;
  return () => answers[Math.min(index++, answers.length - 1)] ?? { status: 500 };
}
