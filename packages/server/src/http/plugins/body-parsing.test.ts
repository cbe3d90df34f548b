import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { findJsonShapeProblem } from '../json-shape';
import { BULK_JSON_LIMITS, JSON_LIMITS } from './body-parsing';
import { MAX_REPORTED_ISSUES } from './errors';

/** `{"k0":0,"k1":0,…}` with `count` keys. */
function manyKeys(count: number): string {
  const keys: string[] = new Array(count);
  for (let i = 0; i < count; i += 1) keys[i] = `"k${i}":0`;
  return `{${keys.join(',')}}`;
}

let site: ContentTestSite;
beforeAll(async () => {
  site = await createContentTestSite({ slug: 'bodies' });
  await site.createType({
    name: 'note',
    label: 'Note',
    nodeLabel: 'Note',
    keyField: 'title',
    fields: [{ name: 'title', type: 'string', required: true }],
  });
}, 60_000);
afterAll(async () => {
  await site?.close();
});

const json = { 'content-type': 'application/json' };

describe('JSON bombs (issue 16 item 3)', () => {
  it('refuses a 1,000,000-key object on the import route (32 MB limit) fast, before parsing it', async () => {
    const bomb = `{"typeName":"note","records":[${manyKeys(1_000_000)}]}`;
    expect(bomb.length).toBeGreaterThan(10_000_000);
    const started = performance.now();
    const res = await site.request({ method: 'POST', url: '/api/import/json', headers: json, payload: bomb });
    const elapsedMs = performance.now() - started;
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'json_too_complex',
      error: expect.stringContaining(`an object has more than ${JSON_LIMITS.maxKeys} keys`),
    });
    // JSON.parse alone takes seconds on this body; the scan stops at key 10,001 (a few ms,
    // plus receiving 11 MB). Generous for a busy machine, far below what parsing costs.
    expect(elapsedMs).toBeLessThan(2000);
    const imported = await site.request({ method: 'GET', url: '/api/content/note' });
    expect(imported.json()).toEqual([]);
  });

  it('gives every other route a small body limit: the same bomb is a 413 there', async () => {
    const res = await site.request({
      method: 'POST',
      url: '/api/types',
      headers: json,
      payload: manyKeys(1_000_000),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      code: 'payload_too_large',
      error: 'The request body is larger than 1048576 bytes.',
    });
  });

  it('refuses deep nesting, long strings and (outside imports) long arrays', async () => {
    const deep = `${'['.repeat(JSON_LIMITS.maxDepth + 1)}${']'.repeat(JSON_LIMITS.maxDepth + 1)}`;
    const long = JSON.stringify({
      typeName: 'note',
      records: [{ title: 'x'.repeat(JSON_LIMITS.maxStringLength + 1) }],
    });
    const wide = JSON.stringify({ ids: new Array(JSON_LIMITS.maxArrayItems + 1).fill(0) });
    const cases: Array<[string, string, RegExp]> = [
      ['/api/types', deep, /deeper than 64 levels/],
      ['/api/import/json', long, /a string is longer than 1048576 characters/],
      ['/api/publish', wide, /an array has more than 100000 items/],
    ];
    for (const [url, payload, message] of cases) {
      const res = await site.request({ method: 'POST', url, headers: json, payload });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().code, url).toBe('json_too_complex');
      expect(res.json().error, url).toMatch(message);
    }
  });

  it('reports at most a few dozen validation issues, and how many it left out', async () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `not an id ${i}`);
    const res = await site.request({ method: 'POST', url: '/api/publish', headers: json, payload: { ids } });
    expect(res.statusCode).toBe(400);
    const body = res.json() as { code: string; error: string };
    expect(body.code).toBe('validation_failed');
    expect(body.error.match(/body\.ids\.\d+:/g)).toHaveLength(MAX_REPORTED_ISSUES);
    expect(body.error).toContain(`… and ${5000 - MAX_REPORTED_ISSUES} more issue(s) left out`);
    expect(res.body.length).toBeLessThan(10_000);
  });

  it('still reads ordinary bodies, and prototype poisoning is still refused', async () => {
    const ok = await site.request({
      method: 'POST',
      url: '/api/content/note',
      headers: json,
      payload: JSON.stringify({ id: 'note:a', fields: { title: 'A "quoted" \\ title \u00e9' } }),
    });
    expect(ok.statusCode, ok.body).toBe(201);
    const poisoned = await site.request({
      method: 'POST',
      url: '/api/content/note',
      headers: json,
      payload: '{"id":"note:b","fields":{"title":"b"},"__proto__":{"admin":true}}',
    });
    expect(poisoned.statusCode).toBe(400);
  });
});

describe('findJsonShapeProblem', () => {
  const limits = { maxDepth: 3, maxKeys: 2, maxArrayItems: 3, maxStringLength: 5 };

  it('finds the first limit broken, counting escapes as one character', () => {
    expect(findJsonShapeProblem('{"a":[1,2,3],"b":{"c":"12345"}}', limits)).toBeNull();
    expect(findJsonShapeProblem('{"a":1,"b":2,"c":3}', limits)).toEqual({ limit: 'keys', max: 2 });
    expect(findJsonShapeProblem('[1,2,3,4]', limits)).toEqual({ limit: 'array', max: 3 });
    expect(findJsonShapeProblem('[[[[1]]]]', limits)).toEqual({ limit: 'depth', max: 3 });
    expect(findJsonShapeProblem('"123456"', limits)).toEqual({ limit: 'string', max: 5 });
    expect(findJsonShapeProblem('"\\n\\"\\u00e9\\\\5"', limits)).toBeNull();
    expect(findJsonShapeProblem('"\\n\\"\\u00e9\\\\56"', limits)).toEqual({ limit: 'string', max: 5 });
    // Brackets, colons and commas inside strings are not structure.
    expect(findJsonShapeProblem('{"a":"[[[,:"}', limits)).toBeNull();
    expect(findJsonShapeProblem('[":,", ":,", "[[[["]', limits)).toBeNull();
    expect(findJsonShapeProblem('{"a":"\\"[[["}', limits)).toBeNull();
  });

  it('reads a long string full of escapes in linear time', () => {
    const text = JSON.stringify('\n"'.repeat(2_000_000));
    const started = performance.now();
    expect(findJsonShapeProblem(text, { ...BULK_JSON_LIMITS, maxStringLength: 10_000_000 })).toBeNull();
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('Content-Encoding on a request body (issue 16 item 10)', () => {
  it('answers 415 naming the encoding, not malformed JSON', async () => {
    const body = JSON.stringify({ id: 'note:z', fields: { title: 'z' } });
    for (const [encoding, payload] of [
      ['gzip', gzipSync(body)],
      ['br', brotliCompressSync(body)],
      ['deflate, gzip', gzipSync(body)],
    ] as const) {
      const res = await site.request({
        method: 'POST',
        url: '/api/content/note',
        headers: { ...json, 'content-encoding': encoding },
        payload,
      });
      expect(res.statusCode, encoding).toBe(415);
      expect(res.headers['accept-encoding']).toBe('identity');
      expect(res.json(), encoding).toEqual({
        code: 'unsupported_content_encoding',
        error: expect.stringContaining(`\`${encoding}\``),
      });
    }
    const identity = await site.request({
      method: 'POST',
      url: '/api/content/note',
      headers: { ...json, 'content-encoding': 'identity' },
      payload: body,
    });
    expect(identity.statusCode, identity.body).toBe(201);
  });

  it('checks the credential first (401 before 415)', async () => {
    const res = await site.platform.app.inject({
      method: 'POST',
      url: '/api/content/note',
      headers: { ...json, 'content-encoding': 'gzip', 'x-site-id': site.siteId },
      payload: gzipSync('{}'),
    });
    expect(res.statusCode).toBe(401);
  });
});
