import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../platform/test-platform';

let tp: TestPlatform;
beforeEach(async () => {
  tp = await startTestPlatform();
});
afterEach(async () => {
  await tp.close();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

describe('sites', () => {
  it('creates a site with a uuid graph, seeds the starter kit and makes the creator admin', async () => {
    const res = await tp.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: auth(tp.ownerKey),
      payload: { name: 'My Blog', starterKit: 'author' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const site = res.json();
    expect(site.id).toBe('site:my-blog');
    expect(site.graphName).toMatch(/^[0-9a-f-]{36}$/);
  });
});
