import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got, with whether its signature checked out. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** The `t=` of the signature header (unix seconds). */
  t: number;
  isSignatureValid: boolean;
  /** What the receiver answered. */
  answered: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Resolves when `count` requests have been received. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 (port 0) that checks each delivery's `Trellis-Signature`
 * (HMAC-SHA256 of `<t>.<body>` under `secret`, computed here independently of the server's
 * code) and answers `answer(n)` to the n-th request (1-based): 500s first, then 200, say.
 */
export async function startWebhookReceiver({
  secret,
  answer = () => 200,
}: {
  secret: string;
  answer?: (n: number) => number;
}): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = String(req.headers['trellis-signature'] ?? '');
      const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
      const t = Number(parts.t);
      const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
      const given = Buffer.from(parts.v1 ?? '', 'hex');
      const isSignatureValid = given.length === expected.length && timingSafeEqual(given, expected);
      const status = answer(received.length + 1);
      received.push({
        headers: req.headers,
        body,
        json: JSON.parse(body),
        t,
        isSignatureValid,
        answered: status,
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'thanks' : 'not now');
      for (const waiter of waiters.splice(0)) {
        if (received.length >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/trellis`,
    received,
    waitFor: (count) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
