import { afterEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';
import { loadConfig } from '../../config';

let tp: TestPlatform | undefined;
afterEach(async () => {
  await tp?.close();
  tp = undefined;
});

const ADMIN_UI = 'https://admin.example.test';

function preflight(platform: TestPlatform, origin: string, url = '/api/types') {
  return platform.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'authorization, content-type, x-site-id, if-match',
    },
  });
}

describe('CORS', () => {
  it('answers a preflight from a configured origin, before authentication, with the headers a browser needs', async () => {
    tp = await startTestPlatform({ env: { CMS_CORS_ORIGINS: `${ADMIN_UI}, http://localhost:5173` } });
    const res = await preflight(tp, ADMIN_UI);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ADMIN_UI);
    expect(String(res.headers['access-control-allow-methods'])).toContain('PUT');
    expect(String(res.headers['access-control-allow-methods'])).toContain('DELETE');
    expect(res.headers['access-control-allow-headers']).toBe(
      'authorization, content-type, x-site-id, if-match',
    );
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(res.headers.vary)).toMatch(/origin/i);
    expect(
      (await preflight(tp, 'http://localhost:5173', '/api/sites')).headers['access-control-allow-origin'],
    ).toBe('http://localhost:5173');
  });

  it('marks the answers to an allowed origin, errors included, and exposes ETag', async () => {
    tp = await startTestPlatform({ env: { CMS_CORS_ORIGINS: ADMIN_UI } });
    const ok = await tp.app.inject({
      method: 'GET',
      url: '/api/sites',
      headers: { origin: ADMIN_UI, authorization: `Bearer ${tp.ownerKey}` },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(ADMIN_UI);
    expect(String(ok.headers['access-control-expose-headers'])).toContain('ETag');
    expect(String(ok.headers['access-control-expose-headers'])).toContain('X-Total-Count');
    const refused = await tp.app.inject({ method: 'GET', url: '/api/sites', headers: { origin: ADMIN_UI } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(ADMIN_UI);
  });

  it('gives an origin that is not configured no CORS header, and its preflight no answer', async () => {
    tp = await startTestPlatform({ env: { CMS_CORS_ORIGINS: ADMIN_UI } });
    for (const origin of ['https://evil.example.test', `${ADMIN_UI}.evil.test`, 'null']) {
      const res = await preflight(tp, origin);
      expect(res.statusCode, origin).toBe(404);
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
      expect(res.headers['access-control-allow-methods'], origin).toBeUndefined();
      const get = await tp.app.inject({
        method: 'GET',
        url: '/api/sites',
        headers: { origin, authorization: `Bearer ${tp.ownerKey}` },
      });
      expect(get.statusCode).toBe(200);
      expect(get.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });

  it('is off by default: no preflight route, no CORS header', async () => {
    tp = await startTestPlatform();
    const res = await preflight(tp, ADMIN_UI);
    expect(res.statusCode).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await tp.app.inject({
      method: 'GET',
      url: '/api/sites',
      headers: { origin: ADMIN_UI, authorization: `Bearer ${tp.ownerKey}` },
    });
    expect(get.statusCode).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows any origin with *', async () => {
    tp = await startTestPlatform({ env: { CMS_CORS_ORIGINS: '*' } });
    const res = await preflight(tp, 'https://anywhere.example.test');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('CMS_CORS_ORIGINS', () => {
  it('is empty (CORS off) unless set, and normalizes each origin', () => {
    expect(loadConfig({}).CMS_CORS_ORIGINS).toEqual([]);
    expect(
      loadConfig({ CMS_CORS_ORIGINS: ' https://Admin.Example.test/ ,http://localhost:5173,,' })
        .CMS_CORS_ORIGINS,
    ).toEqual(['https://admin.example.test', 'http://localhost:5173']);
  });

  it('refuses what is not an origin', () => {
    for (const bad of [
      'admin.example.test',
      'https://admin.example.test/ui',
      'ftp://x.test',
      'https://u:p@x.test',
    ]) {
      expect(() => loadConfig({ CMS_CORS_ORIGINS: bad }), bad).toThrow(/CMS_CORS_ORIGINS/);
    }
  });
});
