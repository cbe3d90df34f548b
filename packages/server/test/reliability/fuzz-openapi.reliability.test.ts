import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform';
import { probeRandom, scaled } from './harness';

/**
 * Malformed input over the OpenAPI document: for every operation GET /api/openapi.json lists,
 * fast-check generates requests with hostile path parameters, query values of the wrong type or
 * size, and bodies that are malformed JSON, JSON of the wrong shape, the operation's own fields
 * with values of any type, or the wrong content type, sent as the platform owner on a seeded
 * site (the deepest code paths). No answer may be a 500, nor another 5xx the operation does not
 * document; the server must answer GET /api/health afterwards. The seed is logged.
 * (Multipart and compressed bodies have their own probes in bombs.reliability.test.ts.)
 */

const RUNS_PER_OPERATION = scaled(50, 500);
const { seed } = probeRandom('fuzz over the OpenAPI document');
const fcSeed = Number.parseInt(seed, 10) | 0;

interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string; schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: SchemaLike }> };
  responses?: Record<string, unknown>;
}
interface SchemaLike {
  $ref?: string;
  properties?: Record<string, unknown>;
  anyOf?: SchemaLike[];
  oneOf?: SchemaLike[];
  allOf?: SchemaLike[];
}
interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, SchemaLike> };
}

let tp: TestPlatform;
let siteId: string;
let doc: OpenApiDoc;

beforeAll(async () => {
  tp = await startTestPlatform({ env: { RATE_LIMIT_MAX: '100000000', LOAD_SHED_MAX_HEAP_USED_BYTES: '0' } });
  const created = await tp.app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: { authorization: `Bearer ${tp.ownerKey}` },
    payload: { name: 'Fuzzed', slug: 'fuzzed', starterKit: 'author' },
  });
  expect(created.statusCode, created.body).toBe(201);
  siteId = (created.json() as { id: string }).id;
  const openapi = await tp.app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(openapi.statusCode).toBe(200);
  doc = openapi.json() as OpenApiDoc;
}, 120_000);

afterAll(async () => {
  await tp?.close();
});

/** The property names of a request body schema (following $ref, anyOf, oneOf, allOf). */
function propertyNames(schema: SchemaLike | undefined, depth = 0): string[] {
  if (!schema || depth > 5) return [];
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop() ?? '';
    return propertyNames(doc.components?.schemas?.[name], depth + 1);
  }
  const own = Object.keys(schema.properties ?? {});
  const nested = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap((s) =>
    propertyNames(s, depth + 1),
  );
  return [...new Set([...own, ...nested])];
}

const hostileText = fc.constantFrom(
  '..',
  '%2e%2e',
  '%00',
  '%',
  '%zz',
  '',
  ' ',
  'a'.repeat(5000),
  '😀',
  '../../etc/passwd',
  'site:nope',
  'post:x',
  'null',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  '{{ 7 * 7 }}',
  "' OR 1=1 --",
  '$where',
);
const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  hostileText,
);
const pathValue = fc.oneof(
  anyText.map((text) => encodeURIComponent(text)),
  fc.integer().map(String),
  hostileText.filter((text) => /^[\x21-\x7e]*$/.test(text) && !text.includes('?') && !text.includes('#')),
);
const queryValue = fc.oneof(
  anyText,
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('true', 'false', '[]', '{}', 'null', '-0', '99999999999999999999'),
);
const malformedJson = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    '{',
    '{"a":',
    '[',
    'nul',
    '\u0000',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '{"a":1,"a":2}',
    '1'.repeat(400),
    '"\\ud800"',
  ),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
);

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

function requestsFor(path: string, method: string, operation: OpenApiOperation): fc.Arbitrary<FuzzRequest> {
  const pathParams = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
  const queryParams = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const templateParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const params = [...new Set([...pathParams, ...templateParams])];
  const json = operation.requestBody?.content?.['application/json'];
  const fields = propertyNames(json?.schema);
  const fieldBody = fields.length
    ? fc
        .dictionary(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 3 }), { maxKeys: fields.length })
        .map((body) => JSON.stringify(body))
    : fc.jsonValue({ maxDepth: 3 }).map((body) => JSON.stringify(body));
  const body = fc.oneof(
    fieldBody,
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    malformedJson,
  );
  return fc
    .record({
      params: fc.tuple(...params.map(() => pathValue)),
      query: fc.dictionary(
        fc.oneof(fc.constantFrom(...(queryParams.length ? queryParams : ['x'])), fc.string({ maxLength: 8 })),
        queryValue,
        { maxKeys: 4 },
      ),
      body: fc.option(body, { freq: 5 }),
      contentType,
      siteHeader: fc.oneof(fc.constant(siteId), fc.constant(siteId), fc.constant(siteId), anyText),
    })
    .map(({ params: values, query, body: payload, contentType: type, siteHeader }) => {
      let url = path;
      params.forEach((name, i) => {
        url = url.replace(`{${name}}`, values[i] as string);
      });
      const search = new URLSearchParams(query as Record<string, string>).toString();
      const headers: Record<string, string> = { authorization: `Bearer ${tp.ownerKey}` };
      if (/^[\x20-\x7e]*$/.test(siteHeader)) headers['x-site-id'] = siteHeader;
      const request: FuzzRequest = {
        method: method.toUpperCase(),
        url: search ? `${url}?${search}` : url,
        headers,
      };
      if (payload !== null && !['GET', 'HEAD', 'DELETE'].includes(request.method)) {
        headers['content-type'] = type;
        request.payload = payload;
      }
      return request;
    });
}

describe(`malformed input over the OpenAPI document (${RUNS_PER_OPERATION} requests per operation, seed ${seed})`, () => {
  it('answers no 500, and no 5xx an operation does not document', async () => {
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        operations += 1;
        const documented = new Set(Object.keys(operation.responses ?? {}).map(Number));
        const samples = fc.sample(requestsFor(path, method, operation), {
          seed: fcSeed + operations,
          numRuns: RUNS_PER_OPERATION,
        });
        for (const request of samples) {
          let status: number;
          let body = '';
          try {
            const response = await tp.app.inject({
              method: request.method as 'GET',
              url: request.url,
              headers: request.headers,
              payload: request.payload,
            });
            status = response.statusCode;
            body = response.body;
          } catch (error) {
            // The request itself could not be made (an URL the client refuses): nothing reached the server.
            if (error instanceof TypeError || (error as Error).name === 'TypeError') continue;
            throw error;
          }
          sent += 1;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 500 || (status > 500 && !documented.has(status))) {
            problems.push(
              `${request.method} ${request.url.slice(0, 200)} [${request.headers['content-type'] ?? ''}] ${request.payload?.slice(0, 200) ?? ''} → ${status} ${body.slice(0, 200)}`,
            );
          }
        }
      }
    }
    console.info(
      `[fuzz] ${sent} requests over ${operations} operations (seed ${seed}): ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
    );
    for (const problem of problems.slice(0, 20)) console.info(`[fuzz] ${problem}`);
    expect(operations).toBeGreaterThan(50);
    expect(problems.slice(0, 10)).toEqual([]);
    const health = await tp.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
  });
});
