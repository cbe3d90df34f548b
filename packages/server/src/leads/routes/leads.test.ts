import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { LEAD_LABEL } from '../lead-repository';

const SITE_ORIGIN = 'https://acme.example';
const OTHER_ORIGIN = 'https://evil.example';

describe('/api/leads', () => {
  let site: ContentTestSite;
  beforeEach(async () => {
    site = await createContentTestSite({ slug: 'acme', env: { LEADS_RATE_LIMIT: '1000' } });
    const updated = await site.request({
      method: 'PUT',
      url: `/api/sites/${site.siteId}`,
      payload: { publicUrl: `${SITE_ORIGIN}/` },
    });
    expect(updated.statusCode, updated.body).toBe(200);
  });
  afterEach(async () => {
    await site.close();
  });

  const publicPost = (options: { headers?: Record<string, string>; payload: string | object }) =>
    site.platform.app.inject({ method: 'POST', url: '/api/leads', ...options });
  const storedLeads = async () => (await site.graph.findNodes({ label: LEAD_LABEL, limit: 100 })).nodes;

  it('is described in the OpenAPI document', async () => {
    const doc = (await site.platform.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(Object.keys(doc.paths['/api/leads'])).toEqual(expect.arrayContaining(['get', 'post', 'options']));
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/leads.csv',
        '/api/leads/{id}',
        '/api/bugs',
        '/api/bugs/{id}',
        '/api/sdk/types.d.ts',
        '/api/sdk/client.ts',
      ]),
    );
    expect(Object.keys(doc.paths['/api/leads'].post.requestBody.content)).toEqual(
      expect.arrayContaining(['application/json', 'application/x-www-form-urlencoded']),
    );
  });

  it('stores a JSON lead from the site’s origin (found by Origin, no credential) with CORS for that origin', async () => {
    const response = await publicPost({
      headers: { origin: SITE_ORIGIN, referer: `${SITE_ORIGIN}/contact/` },
      payload: { name: 'Ada', email: 'ada@example.test', message: 'Hello', company: 'Analytical' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    expect(response.headers['access-control-allow-origin']).toBe(SITE_ORIGIN);

    const listed = await site.request({ method: 'GET', url: '/api/leads' });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.headers['x-total-count']).toBe('1');
    expect(listed.json()).toEqual([
      expect.objectContaining({
        name: 'Ada',
        email: 'ada@example.test',
        message: 'Hello',
        fields: { company: 'Analytical' },
        pageUrl: `${SITE_ORIGIN}/contact/`,
        origin: SITE_ORIGIN,
      }),
    ]);
  });

  it('refuses a post from another origin without CORS headers, and answers its preflight without them', async () => {
    const refused = await publicPost({
      headers: { origin: OTHER_ORIGIN },
      payload: { site: 'acme', name: 'Mallory', message: 'spam' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('lead_origin_not_allowed');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(await storedLeads()).toEqual([]);

    const otherPreflight = await site.platform.app.inject({
      method: 'OPTIONS',
      url: '/api/leads',
      headers: { origin: OTHER_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(otherPreflight.headers['access-control-allow-origin']).toBeUndefined();
    const ownPreflight = await site.platform.app.inject({
      method: 'OPTIONS',
      url: '/api/leads',
      headers: {
        origin: SITE_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(ownPreflight.statusCode).toBe(204);
    expect(ownPreflight.headers['access-control-allow-origin']).toBe(SITE_ORIGIN);
    expect(ownPreflight.headers['access-control-allow-methods']).toContain('POST');
  });

  it('takes a plain HTML form post (urlencoded) and redirects back to a thank-you page on the site', async () => {
    const form = new URLSearchParams({
      site: 'acme',
      name: 'Grace',
      email: 'grace@example.test',
      message: 'Hi there',
      _redirect: '/thanks/',
      _honeypot: '',
    });
    const response = await publicPost({
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: SITE_ORIGIN,
        referer: `${SITE_ORIGIN}/contact/`,
      },
      payload: form.toString(),
    });
    expect(response.statusCode, response.body).toBe(303);
    expect(response.headers.location).toBe(`${SITE_ORIGIN}/thanks/`);
    const [stored] = await storedLeads();
    expect(stored?.props).toMatchObject({ name: 'Grace', message: 'Hi there', fields: {} });

    const offSite = await publicPost({
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SITE_ORIGIN },
      payload: new URLSearchParams({ site: 'acme', name: 'X', _redirect: `${OTHER_ORIGIN}/` }).toString(),
    });
    expect(offSite.statusCode).toBe(400);
    expect(offSite.json().error).toMatch(/_redirect/);
    expect(await storedLeads()).toHaveLength(1);
  });

  it('answers a filled honeypot as accepted and stores nothing', async () => {
    const json = await publicPost({
      headers: { origin: SITE_ORIGIN },
      payload: { name: 'Bot', message: 'buy now', _honeypot: 'http://spam.example' },
    });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual({ ok: true });
    const form = await publicPost({
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: SITE_ORIGIN,
        referer: `${SITE_ORIGIN}/contact/`,
      },
      payload: 'site=acme&name=Bot&_honeypot=filled',
    });
    expect(form.statusCode).toBe(303);
    expect(await storedLeads()).toEqual([]);
  });

  it('answers 404 for a lead that names no site, 413 past the size limit, 400 past the field limits', async () => {
    const unknown = await publicPost({ payload: { site: 'nope', name: 'x' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('lead_site_unknown');
    const noSite = await publicPost({ headers: { origin: OTHER_ORIGIN }, payload: { name: 'x' } });
    expect(noSite.json().code).toBe('lead_site_unknown');

    const big = await publicPost({ payload: { site: 'acme', message: 'x'.repeat(40 * 1024) } });
    expect(big.statusCode).toBe(413);
    expect(big.json().code).toBe('payload_too_large');

    const manyFields = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`f${i}`, 'v']));
    const tooMany = await publicPost({ payload: { site: 'acme', ...manyFields } });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error).toMatch(/at most 30 fields/);
    expect(await storedLeads()).toEqual([]);
  });

  it('exports CSV with quoting and formula-safe cells, and deletes a lead', async () => {
    for (const lead of [
      {
        name: '=HYPERLINK("http://evil.example","x")',
        email: 'a@example.test',
        message: 'line 1\nline "2", end',
      },
      { name: '@SUM(A1)', email: '+1 555', message: '-2', plan: 'pro' },
    ]) {
      expect((await publicPost({ payload: { site: 'acme', ...lead } })).statusCode).toBe(200);
    }
    const csv = await site.request({ method: 'GET', url: '/api/leads.csv' });
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.split('\r\n');
    expect(lines[0]).toBe('id,createdAt,name,email,message,pageUrl,origin,plan');
    expect(csv.body).toContain(
      `"'=HYPERLINK(""http://evil.example"",""x"")",a@example.test,"line 1\nline ""2"", end"`,
    );
    expect(csv.body).toContain(`'@SUM(A1),'+1 555,'-2,,,pro`);
    expect((await site.request({ method: 'GET', url: '/api/leads?format=csv' })).body).toBe(csv.body);

    const [first] = (await site.request({ method: 'GET', url: '/api/leads?limit=1' })).json() as Array<{
      id: string;
    }>;
    expect(first?.id).toMatch(/^lead:/);
    expect((await site.request({ method: 'DELETE', url: `/api/leads/${first?.id}` })).statusCode).toBe(204);
    expect((await site.request({ method: 'DELETE', url: `/api/leads/${first?.id}` })).statusCode).toBe(404);
    expect(await storedLeads()).toHaveLength(1);
  });

  it('needs an editor of the site to list leads', async () => {
    const viewer = await site.platform.addUser({ name: 'viewer', siteId: site.siteId, role: 'viewer' });
    const listed = await site.platform.app.inject({
      method: 'GET',
      url: '/api/leads',
      headers: { authorization: `Bearer ${viewer.key}`, 'x-site-id': site.siteId },
    });
    expect(listed.statusCode).toBe(403);
  });
});

describe('/api/leads rate limit', () => {
  it('answers 429 with Retry-After past LEADS_RATE_LIMIT posts from one address', async () => {
    const site = await createContentTestSite({ slug: 'limited', env: { LEADS_RATE_LIMIT: '2' } });
    try {
      const post = () =>
        site.platform.app.inject({
          method: 'POST',
          url: '/api/leads',
          payload: { site: 'limited', name: 'x' },
        });
      expect((await post()).statusCode).toBe(200);
      expect((await post()).statusCode).toBe(200);
      const limited = await post();
      expect(limited.statusCode).toBe(429);
      expect(limited.json().code).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await site.graph.findNodes({ label: LEAD_LABEL, limit: 10 })).total).toBe(2);
    } finally {
      await site.close();
    }
  });
});

describe('/api/leads with CMS_CORS_ORIGINS set for an admin UI', () => {
  it('still answers CORS for the site’s origins, and for the admin origin as configured', async () => {
    const site = await createContentTestSite({
      slug: 'both',
      env: { CMS_CORS_ORIGINS: 'https://admin.example' },
    });
    try {
      await site.request({
        method: 'PUT',
        url: `/api/sites/${site.siteId}`,
        payload: { publicUrl: SITE_ORIGIN },
      });
      const preflight = (origin: string) =>
        site.platform.app.inject({
          method: 'OPTIONS',
          url: '/api/leads',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
      expect((await preflight(SITE_ORIGIN)).headers['access-control-allow-origin']).toBe(SITE_ORIGIN);
      expect((await preflight('https://admin.example')).headers['access-control-allow-origin']).toBe(
        'https://admin.example',
      );
      expect((await preflight(OTHER_ORIGIN)).headers['access-control-allow-origin']).toBeUndefined();
      const posted = await site.platform.app.inject({
        method: 'POST',
        url: '/api/leads',
        headers: { origin: SITE_ORIGIN },
        payload: { name: 'Ada' },
      });
      expect(posted.statusCode, posted.body).toBe(200);
      expect(posted.headers['access-control-allow-origin']).toBe(SITE_ORIGIN);
    } finally {
      await site.close();
    }
  });
});
