import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../test/helpers/test-platform';
import { fixedClock } from '../shared/clock';

const AT = '2031-02-03T04:05:06.789Z';

describe('the app clock (BuildAppOptions.clock)', () => {
  let tp: TestPlatform;
  beforeAll(async () => {
    tp = await startTestPlatform({ clock: fixedClock(AT) });
  });
  afterAll(async () => {
    await tp.close();
  });

  it('stamps what the server stores with the injected time', async () => {
    const headers = { authorization: `Bearer ${tp.ownerKey}` };
    const site = await tp.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers,
      payload: { name: 'Clocked', starterKit: 'none' },
    });
    expect(site.statusCode, site.body).toBe(201);
    expect(site.json().createdAt).toBe(AT);

    const siteHeaders = { ...headers, 'x-site-id': site.json().id };
    const key = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: siteHeaders,
      payload: { name: 'ci', role: 'viewer' },
    });
    expect(key.statusCode, key.body).toBe(201);
    expect(key.json().createdAt).toBe(AT);

    const build = await tp.app.inject({
      method: 'POST',
      url: '/api/build',
      headers: siteHeaders,
      payload: {},
    });
    expect(build.statusCode, build.body).toBe(200);
    expect(build.json().buildId).toMatch(/^b20310203040506789-/);
  });
});
