import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

describe('templates routes', () => {
  let site: ContentTestSite;
  beforeEach(async () => {
    site = await createContentTestSite();
  });
  afterEach(async () => {
    await site.close();
  });

  it('creates a template (html as an alias of content) and reads it back at its head version', async () => {
    const created = await site.request({
      method: 'POST',
      url: '/api/templates',
      payload: { name: 'post', html: '<h1>{{ item.title }}</h1>', boundType: 'post' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      name: 'post',
      content: '<h1>{{ item.title }}</h1>',
      version: 1,
      latestVersion: 1,
      boundType: 'post',
      enabled: true,
    });
    const read = await site.request({ method: 'GET', url: '/api/templates/post' });
    expect(read.statusCode).toBe(200);
    expect(read.json().content).toBe('<h1>{{ item.title }}</h1>');
    const list = await site.request({ method: 'GET', url: '/api/templates' });
    expect(list.json().map((t: { name: string }) => t.name)).toEqual(['post']);
  });

  it('pages whole lists with limit and offset (templates, versions, types, environments, resources, sites)', async () => {
    for (const name of ['a', 'b', 'c']) {
      await site.request({ method: 'POST', url: '/api/templates', payload: { name, content: name } });
    }
    for (const content of ['a2', 'a3']) {
      await site.request({ method: 'PUT', url: '/api/templates/a', payload: { content } });
    }
    const names = (response: { json(): unknown }) =>
      (response.json() as Array<Record<string, unknown>>).map(
        (entry) => entry.name ?? entry.version ?? entry.id,
      );
    const page = await site.request({ method: 'GET', url: '/api/templates?limit=1&offset=1' });
    expect(names(page)).toEqual(['b']);
    expect(page.headers['x-total-count']).toBe('3');
    const versions = await site.request({ method: 'GET', url: '/api/templates/a/versions?offset=1' });
    expect(versions.json().map((v: { version: number }) => v.version)).toEqual([2, 3]);
    expect(versions.headers['x-total-count']).toBe('3');
    const environments = await site.request({ method: 'GET', url: '/api/releases/environments?limit=1' });
    expect(names(environments)).toEqual(['dev']);
    expect(environments.headers['x-total-count']).toBe('2');
    for (const slug of ['one', 'two']) {
      const route = await site.request({
        method: 'POST',
        url: '/api/routes',
        payload: { slug, path: `/${slug}/`, kind: 'redirect', redirectTo: '/' },
      });
      expect(route.statusCode, route.body).toBe(201);
    }
    const routes = await site.request({ method: 'GET', url: '/api/routes?offset=1' });
    expect(routes.headers['x-total-count']).toBe('2');
    expect(routes.json()).toHaveLength(1);
    const types = await site.request({ method: 'GET', url: '/api/types?limit=5' });
    expect(types.headers['x-total-count']).toBe('0');
    const sites = await site.request({ method: 'GET', url: '/api/sites?limit=1&offset=0' });
    expect(sites.headers['x-total-count']).toBe('1');
    for (const url of [
      '/api/auth/users',
      '/api/auth/api-keys',
      '/api/access/my-sites',
      '/api/access/invitations',
    ]) {
      const list = await site.request({ method: 'GET', url: `${url}?limit=1` });
      expect(list.statusCode, `${url}: ${list.body}`).toBe(200);
      expect(Number(list.headers['x-total-count']), url).toBeGreaterThanOrEqual(list.json().length);
    }
    expect((await site.request({ method: 'GET', url: '/api/templates?limit=0' })).statusCode).toBe(400);
  });

  it('writes a new version on every PUT and keeps the old ones', async () => {
    await site.request({ method: 'POST', url: '/api/templates', payload: { name: 'home', content: 'v1' } });
    const second = await site.request({
      method: 'PUT',
      url: '/api/templates/home',
      payload: { content: 'v2' },
    });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ version: 2, latestVersion: 2, content: 'v2', boundType: '' });
    const third = await site.request({
      method: 'PUT',
      url: '/api/templates/home',
      payload: { enabled: false },
    });
    expect(third.json()).toMatchObject({ version: 3, content: 'v2', enabled: false });
    const versions = await site.request({ method: 'GET', url: '/api/templates/home/versions' });
    expect(versions.json().map((t: { version: number; content: string }) => [t.version, t.content])).toEqual([
      [1, 'v1'],
      [2, 'v2'],
      [3, 'v2'],
    ]);
    const head = await site.request({ method: 'GET', url: '/api/templates/home' });
    expect(head.json()).toMatchObject({ version: 3, enabled: false });
  });

  it('refuses Liquid that does not parse with a 400 naming line and column, and stores nothing', async () => {
    const bad = await site.request({
      method: 'POST',
      url: '/api/templates',
      payload: { name: 'broken', content: 'line one\n{% if x %}\nno end' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('invalid_template');
    expect(bad.json().error).toMatch(/line \d+, column \d+/);
    expect((await site.request({ method: 'GET', url: '/api/templates/broken' })).statusCode).toBe(404);
  });

  it('answers an identical retried POST with the stored template, and 409 for other content', async () => {
    const payload = { name: 'dup', content: 'same' };
    expect((await site.request({ method: 'POST', url: '/api/templates', payload })).statusCode).toBe(201);
    const retry = await site.request({ method: 'POST', url: '/api/templates', payload });
    expect(retry.statusCode).toBe(201);
    expect(retry.json().version).toBe(1);
    const other = await site.request({
      method: 'POST',
      url: '/api/templates',
      payload: { name: 'dup', content: 'x' },
    });
    expect(other.statusCode).toBe(409);
  });

  it('answers 400 without a body, 404 for PUT on an unknown template', async () => {
    expect((await site.request({ method: 'POST', url: '/api/templates' })).statusCode).toBe(400);
    const missing = await site.request({
      method: 'PUT',
      url: '/api/templates/nope',
      payload: { content: 'x' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('not_found');
  });
});
