import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';

/**
 * The MCP transport writes its answer itself (the reply is hijacked): the headers the app's own
 * hooks set before it, CORS for an allowed browser origin among them, must still be sent.
 */
const ORIGIN = 'http://localhost:6274';
let tp: TestPlatform;
let siteId: string;

beforeAll(async () => {
  tp = await startTestPlatform({ env: { CMS_CORS_ORIGINS: ORIGIN } });
  const created = await tp.app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: { authorization: `Bearer ${tp.ownerKey}` },
    payload: { name: 'Cors', slug: 'agent-cors', starterKit: 'none' },
  });
  expect(created.statusCode, created.body).toBe(201);
  siteId = created.json().id;
}, 60_000);

afterAll(async () => {
  await tp?.close();
});

describe('POST /api/agent from a browser origin', () => {
  it('carries the CORS headers of an allowed origin on the transport’s answer', async () => {
    const res = await tp.app.inject({
      method: 'POST',
      url: '/api/agent',
      headers: {
        origin: ORIGIN,
        authorization: `Bearer ${tp.ownerKey}`,
        'x-site-id': siteId,
        accept: 'application/json, text/event-stream',
      },
      payload: {
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'browser', version: '1' },
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.json()).toMatchObject({ id: 7, result: { serverInfo: { name: 'trellis' } } });
  });
});
