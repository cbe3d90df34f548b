import { request as httpRequest } from 'node:http';
import Fastify, { type FastifyContextConfig, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyParsingPlugin, bulkBodySource } from './body-parsing';
import { errorsPlugin } from './errors';

/**
 * How the body parser reads bodies over a real socket (chunks as llhttp gives them, chunked
 * transfer, a body cut off at the limit), compared with Fastify's own `parseAs: 'string'` JSON
 * parser in an app that differs only by it: every answer must be the same.
 */
const BODY_LIMIT = 4096;
const IMPORT_LIMIT = 64 * 1024;

async function appWith(ours: boolean): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
  await app.register(errorsPlugin);
  if (ours) await app.register(bodyParsingPlugin, { importBodyLimit: IMPORT_LIMIT });
  const bulk: FastifyContextConfig = ours ? { isBulkBody: true, keepsBodySource: true } : {};
  app.post('/echo', async (request) => ({ body: request.body }));
  app.post('/bulk', { config: bulk, ...(ours ? {} : { bodyLimit: IMPORT_LIMIT }) }, async (request) => ({
    body: request.body,
    source: ours ? bulkBodySource(request) : undefined,
  }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

let ours: FastifyInstance;
let fastifys: FastifyInstance;
beforeAll(async () => {
  [ours, fastifys] = await Promise.all([appWith(true), appWith(false)]);
});
afterAll(async () => {
  await Promise.all([ours?.close(), fastifys?.close()]);
});

interface Answer {
  status: number;
  body: unknown;
}

/**
 * POSTs `chunks` as separate writes (each flushed before the next), with a Content-Length of
 * their total unless `chunked`; resolves with the answer even when the server answers before
 * the whole body is sent and closes the connection.
 */
function post(app: FastifyInstance, path: string, chunks: Buffer[], chunked = false): Promise<Answer> {
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }),
        },
      },
      (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text === '' ? '' : JSON.parse(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    let at = 0;
    const next = () => {
      if (at === chunks.length) return void req.end();
      const chunk = chunks[at]!;
      at += 1;
      req.write(chunk, () => next());
    };
    next();
  });
}

/** `text` as UTF-8 cut into pieces of `size` bytes (multi-byte characters split across them). */
function pieces(text: string | Buffer, size: number): Buffer[] {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

async function both(path: string, chunks: Buffer[], chunked = false): Promise<Answer> {
  const [mine, theirs] = await Promise.all([
    post(ours, path, chunks, chunked),
    post(fastifys, path, chunks, chunked),
  ]);
  expect(mine).toEqual(theirs);
  return mine;
}

describe('reading JSON bodies (issue 20 item 4)', () => {
  const value = {
    title: 'é — ünïcödé 😀 "quoted" \\',
    list: Array.from({ length: 200 }, (_, i) => `item ${i} ✓`),
  };
  const text = JSON.stringify(value);

  it('reads a body sent in many small writes, multi-byte characters split across them', async () => {
    for (const size of [1, 7, 1000]) {
      const answer = await both('/echo', pieces(text, size));
      expect(answer).toEqual({ status: 200, body: { body: value } });
    }
  });

  it('reads a chunked body without a Content-Length', async () => {
    const answer = await both('/echo', pieces(text, 333), true);
    expect(answer).toEqual({ status: 200, body: { body: value } });
  });

  it('hands a bulk route the exact JSON text it parsed', async () => {
    const big = JSON.stringify({ ...value, more: 'x'.repeat(20_000) });
    for (const chunked of [false, true]) {
      const answer = await post(ours, '/bulk', pieces(big, 4000), chunked);
      expect(answer.status).toBe(200);
      expect((answer.body as { source: string }).source).toBe(big);
    }
  });

  it('answers 413 at the limit: by Content-Length, and mid-stream for a chunked body', async () => {
    const over = pieces(JSON.stringify({ pad: 'y'.repeat(BODY_LIMIT) }), 1000);
    const tooLarge = {
      status: 413,
      body: { code: 'payload_too_large', error: `The request body is larger than ${BODY_LIMIT} bytes.` },
    };
    expect(await both('/echo', over)).toEqual(tooLarge);
    expect(await both('/echo', over, true)).toEqual(tooLarge);
    // The bulk route's own limit: under it read whole, over it refused mid-stream.
    const bulkOver = pieces(JSON.stringify({ pad: 'z'.repeat(IMPORT_LIMIT) }), 8192);
    expect(await both('/bulk', bulkOver, true)).toEqual({
      status: 413,
      body: { code: 'payload_too_large', error: `The request body is larger than ${IMPORT_LIMIT} bytes.` },
    });
  });

  it('answers as Fastify does to an empty body, bad JSON and poisoned prototypes', async () => {
    const cases = [
      '',
      '{"a":',
      '{"a":1}x',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"admin":true}}}',
    ];
    for (const body of cases) {
      const answer = await both('/echo', body === '' ? [] : pieces(body, 3));
      expect(answer.status, body).toBe(400);
      expect(Object.keys(answer.body as object).sort(), body).toEqual(['code', 'error']);
    }
  });

  it('reads invalid UTF-8 as Fastify does: U+FFFD inside a string, 400 outside one', async () => {
    const inString = Buffer.concat([Buffer.from('{"t":"a'), Buffer.from([0xff, 0xc3]), Buffer.from('b"}')]);
    const answer = await both('/echo', pieces(inString, 2));
    expect(answer).toEqual({ status: 200, body: { body: { t: 'a\ufffd\ufffdb' } } });
    const outside = Buffer.concat([Buffer.from('{"t":1'), Buffer.from([0xfe]), Buffer.from('}')]);
    expect((await both('/echo', [outside])).status).toBe(400);
  });
});
