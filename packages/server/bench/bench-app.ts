/**
 * What the in-process HTTP benches share: the owner key, the `place` type and its records, the
 * environment of a bench app (no rate limit, no load shedding, large import bodies, silent), and
 * an authenticated JSON call. Imports nothing from src/, so a probe that loads another copy of
 * the app (BENCH_APP_SRC) can use it too.
 */

import { request } from 'node:http';

export const OWNER_KEY = 'bench-owner-key-0123456789abcdef';

export const placeType = {
  name: 'place',
  label: 'Place',
  nodeLabel: 'Place',
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: true },
    { name: 'name', type: 'string', required: true, maxLength: 200 },
    { name: 'country', type: 'string' },
    { name: 'population', type: 'number' },
    { name: 'about', type: 'text' },
  ],
  relationships: [{ name: 'near', edgeLabel: 'NEAR', target: 'place', kind: 'many-to-many' }],
};

/** The i-th record of the `place` type. */
export function placeRecord(i: number) {
  return {
    slug: `place-${i}`,
    name: `Place number ${i}`,
    country: `c${i % 200}`,
    population: (i * 7919) % 1_000_000,
    about: `A settlement of the benchmark, ${i % 97} km from the coast, founded in year ${1000 + (i % 900)}.`,
  };
}

/** `count` NEAR edges between the first `records` places (each place gets about count / records). */
export function placeEdges(count: number, records: number) {
  return Array.from({ length: count }, (_, i) => ({
    from: `place:place-${i % records}`,
    edge: 'NEAR',
    to: `place:place-${(i * 7 + 1 + Math.floor(i / records)) % records}`,
    props: { km: i % 50 },
  }));
}

/** The environment of a bench app on `dataDir`, with `extra` on top (engine, read cache, …). */
export function benchAppEnv(dataDir: string, extra: Record<string, string | undefined> = {}) {
  return {
    CMS_DATA_DIR: dataDir,
    CMS_OWNER_KEY: OWNER_KEY,
    LOG_LEVEL: 'silent',
    CMS_SCHEDULER: '0',
    RATE_LIMIT_MAX: '100000000',
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
    IMPORT_BODY_LIMIT_BYTES: String(256 * 1024 * 1024),
    ...extra,
  };
}

/** One request as the owner (a JSON body when given; a string is sent as the JSON already made); throws on a non-2xx answer. */
export async function benchApi(
  base: string,
  site: string | null,
  method: string,
  path: string,
  body?: unknown,
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${OWNER_KEY}`,
      ...(site ? { 'x-site-id': site } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return { json: () => JSON.parse(text), text, headers: response.headers };
}

/**
 * One JSON request as the owner whose body's bytes are made by the caller (before its clock
 * starts), sent with node:http as they are: `fetch` would encode and copy a large body again
 * inside the timed window (about 210 ms of the client's CPU for 50 MB, on the server's thread
 * when both run in one process). Throws on a non-2xx answer; resolves with the parsed answer.
 */
export function benchSendJson(
  base: string,
  site: string | null,
  path: string,
  bytes: Buffer,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${OWNER_KEY}`,
          ...(site ? { 'x-site-id': site } : {}),
          'content-type': 'application/json',
          'content-length': bytes.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299)
            reject(new Error(`POST ${path}: ${status} ${text.slice(0, 300)}`));
          else {
            try {
              resolve(JSON.parse(text));
            } catch (error) {
              reject(error);
            }
          }
        });
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}
