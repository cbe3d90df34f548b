import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client';
import { isApiError } from '../errors/api-error';
import { createTestServer, type TestServer } from '../test-support/create-test-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const site = () => createClient({ baseUrl: server!.url, apiKey: 'k', retry: false }).site('site:blog');
const noContent = () => ({ status: 204 });

describe('deletes', () => {
  it('sends DELETE on each resource path, with cascade=1 only when asked', async () => {
    server = await createTestServer({
      'DELETE /api/types/post': noContent,
      'DELETE /api/templates/post': noContent,
      'DELETE /api/routes/home': noContent,
      'DELETE /api/views/news': noContent,
      'DELETE /api/transforms/upper': noContent,
      'DELETE /api/scripts/stamp': noContent,
      'DELETE /api/block-types/hero': noContent,
      'DELETE /api/widgets/latest': noContent,
      'DELETE /api/page-kits/landing': noContent,
      'DELETE /api/releases/release%3Aspring': noContent,
      'DELETE /api/releases/environments/env%3Astaging': noContent,
      'DELETE /api/media/asset%3Aabc': noContent,
    });
    const client = site();
    await client.types.delete('post');
    await client.types.delete('post', { cascade: true });
    await client.templates.delete('post');
    await client.routes.delete('home', { cascade: true });
    await client.views.delete('news');
    await client.transforms.delete('upper');
    await client.scripts.delete('stamp', { cascade: false });
    await client.blockTypes.delete('hero');
    await client.widgets.delete('latest');
    await client.pageKits.delete('landing');
    await client.releases.delete('release:spring');
    await client.releases.deleteEnvironment('env:staging');
    await client.media.delete('asset:abc', { cascade: true });
    expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'DELETE /api/types/post',
      'DELETE /api/types/post?cascade=1',
      'DELETE /api/templates/post',
      'DELETE /api/routes/home?cascade=1',
      'DELETE /api/views/news',
      'DELETE /api/transforms/upper',
      'DELETE /api/scripts/stamp',
      'DELETE /api/block-types/hero',
      'DELETE /api/widgets/latest',
      'DELETE /api/page-kits/landing',
      'DELETE /api/releases/release%3Aspring',
      'DELETE /api/releases/environments/env%3Astaging',
      'DELETE /api/media/asset%3Aabc?cascade=1',
    ]);
    expect(server.requests.every((request) => request.headers['x-site-id'] === 'site:blog')).toBe(true);
  });

  it('surfaces a 409 in_use as an ApiError whose body names the holders', async () => {
    const holders = [{ kind: 'item', id: 'post:a', cascades: true }];
    server = await createTestServer({
      'DELETE /api/types/post': () => ({
        status: 409,
        body: {
          error: 'Content type `post` cannot be deleted; it is still used by item post:a.',
          code: 'in_use',
          hint: 'Send the DELETE again with ?cascade=1 to delete its 1 item(s) with it, or change them first.',
          holders,
          holderCount: 1,
        },
      }),
    });
    const error = await site()
      .types.delete('post')
      .catch((caught: unknown) => caught);
    expect(isApiError(error)).toBe(true);
    if (!isApiError(error)) return;
    expect(error.status).toBe(409);
    expect(error.code).toBe('in_use');
    expect(error.hint).toContain('?cascade=1');
    expect(error.body).toMatchObject({ holders, holderCount: 1 });
    expect(server.requests).toHaveLength(1);
  });
});
