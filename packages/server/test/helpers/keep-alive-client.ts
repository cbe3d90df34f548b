import { type Agent, request } from 'node:http';

/** An answer, or the socket error a request met instead. */
export interface Answer {
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  reusedSocket: boolean;
  error: string | null;
}

/**
 * One request through `agent` (keep-alive sockets are reused), resolving with the answer or the
 * socket error instead of rejecting; `reusedSocket` says whether it went on a kept-alive socket.
 */
export function send(
  agent: Agent,
  url: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(`${url}${options.path}`, {
      agent,
      method: options.method,
      headers: {
        ...options.headers,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? null,
          headers: res.headers,
          body,
          reusedSocket: req.reusedSocket,
          error: null,
        }),
      );
      res.on('error', (error) =>
        resolve({ status: null, headers: {}, body, reusedSocket: req.reusedSocket, error: error.message }),
      );
    });
    req.on('error', (error: Error & { code?: string }) =>
      resolve({
        status: null,
        headers: {},
        body: '',
        reusedSocket: req.reusedSocket,
        error: error.code ?? error.message,
      }),
    );
    req.end(options.body);
  });
}
