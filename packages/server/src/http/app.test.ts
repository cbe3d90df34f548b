import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { HealthResponse } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { buildApp } from './app';

const OWNER_KEY = 'app-test-owner-key-0123456789abcdef';
const auth = { authorization: `Bearer ${OWNER_KEY}` };

let dataDir: string;
let app: FastifyInstance;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'trellis-app-'));
  app = await buildApp({
    config: loadConfig({
      CMS_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      CMS_OWNER_KEY: OWNER_KEY,
      CMS_SCHEDULER: '0',
    }),
    logger: false,
  });
});

afterEach(async () => {
  await app.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Signs of a leaked stack trace or internal detail in a response body. */
function expectNoStackTrace(body: string): void {
  expect(body).not.toMatch(/\n\s+at /);
  expect(body).not.toMatch(/\bat .+\(.*:\d+:\d+\)/);
  expect(body).not.toMatch(/\.(ts|js|mjs|cjs):\d+/);
  expect(body).not.toMatch(/node_modules|\/work\/|"stack"/);
}

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document with the core schemas as components', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const document = res.json();
    expect(document.openapi).toBe('3.1.0');
    // The API description's version (docs/api-spec.md §9), not the server package's.
    expect(document.info.version).toBe('1.0.0');

    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors ?? [], null, 2).slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    expect(document.paths['/api/health']).toBeDefined();
    for (const id of [
      'Site',
      'ContentType',
      'ContentRecord',
      'BuildResult',
      'Release',
      'Deployment',
      'Error',
      'SiteSnapshot',
    ]) {
      expect(document.components.schemas[id], id).toBeDefined();
    }
  });

  it('resolves every $ref to a component', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map(
      (match) => match[1] as string,
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
    }
  });

  it('documents a success response with a schema for every operation', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const operations = Object.entries(
      document.paths as Record<string, Record<string, { responses?: object }>>,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ at: `${method} ${path}`, operation })),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const { at, operation } of operations) {
      const responses = Object.entries(operation.responses ?? {}) as [string, { content?: unknown }][];
      const successes = responses.filter(([status]) => status.startsWith('2'));
      expect(successes.length, at).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        if (status !== '204') expect(response.content, `${at} ${status}`).toBeDefined();
      }
    }
  });

  it('marks the public endpoints of docs/api-spec.md §5 as needing no credential, and the others as bearer', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(document.security).toEqual([{ bearer: [] }]);
    for (const path of ['/api/health', '/api/health/detail', '/api/metrics/apikey-cache']) {
      expect(document.paths[path]?.get?.security, path).toEqual([]);
    }
    expect(document.paths['/api/sites'].get.security).toBeUndefined();
    // Redeeming an invitation takes a credential or none.
    expect(document.paths['/api/auth/invitations/accept'].post.security).toEqual([{}, { bearer: [] }]);
  });

  it('documents the X-Site-Id header on site-scoped endpoints only', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const siteHeader = (operation: { parameters?: { in: string; name: string; required?: boolean }[] }) =>
      operation.parameters?.find(
        (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'x-site-id',
      );
    expect(siteHeader(document.paths['/api/types'].get)).toMatchObject({ required: true });
    expect(siteHeader(document.paths['/api/auth/api-keys'].post)).toMatchObject({ required: true });
    expect(siteHeader(document.paths['/api/sites'].get)).toBeUndefined();
    expect(siteHeader(document.paths['/api/access/my-sites'].get)).toBeUndefined();
  });

  it('needs no credential', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/openapi.json',
      headers: { authorization: 'Bearer nope' },
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /api/health', () => {
  it('answers 200 in the spec shape without a credential', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    // The spec's fields, and the instance that answered (docs/scaling.md § Several API servers).
    expect(Object.keys(body).sort()).toEqual([
      'instanceId',
      'lastBuildAt',
      'lastBuildId',
      'platformGraph',
      'status',
    ]);
    expect(HealthResponse.parse(body)).toEqual(body);
    expect(body.status).toBe('ok');
    expect(typeof body.platformGraph).toBe('string');
  });
});

describe('errors', () => {
  it('answers an unknown route with 404 JSON {error, code}', async () => {
    for (const [method, url] of [
      ['GET', '/api/no-such-thing'],
      ['POST', '/api/sites/site:x/nothing'],
      ['GET', '/nowhere'],
      ['DELETE', '/api/health'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      const body = res.json();
      expect(body).toMatchObject({ code: 'route_not_found' });
      expect(typeof body.error).toBe('string');
      expectNoStackTrace(res.body);
    }
  });

  it('answers malformed JSON with 400 malformed_json', async () => {
    for (const payload of ['{"name": "Acme"', '{name: "Acme"}', '{"name": "Acme",}', 'not json']) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/sites',
        headers: { ...auth, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json()).toMatchObject({ code: 'malformed_json' });
      expectNoStackTrace(res.body);
    }
  });

  it('answers a body that fails its schema with 400 validation_failed naming the field', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: auth,
      payload: { slug: 'Not A Slug' },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('validation_failed');
    expect(body.error).toMatch(/name|slug/);
    expectNoStackTrace(res.body);
  });

  it('answers a missing or unknown credential with 401 and no stack trace', async () => {
    const missing = await app.inject({ method: 'GET', url: '/api/sites' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ code: 'unauthenticated' });
    const unknown = await app.inject({
      method: 'GET',
      url: '/api/sites',
      headers: { authorization: 'Bearer nope-0123456789' },
    });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().code).toBe('invalid_credential');
    expectNoStackTrace(missing.body);
    expectNoStackTrace(unknown.body);
  });

  it('hides the text and stack of an unexpected error behind a 500 internal_error', async () => {
    app.get('/api/test/explode', { config: { siteScope: 'none', public: true } }, async () => {
      throw new Error('secret detail /work/main/packages/server/src/thing.ts:12:3');
    });
    const res = await app.inject({ method: 'GET', url: '/api/test/explode' });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body.code).toBe('internal_error');
    expect(Object.keys(body).sort()).toEqual(['code', 'error']);
    expect(res.body).not.toContain('secret detail');
    expectNoStackTrace(res.body);
  });
});
