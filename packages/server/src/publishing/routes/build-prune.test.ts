import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { siteEnvRoot } from '../build-service';

describe('build versions on disk: retention and POST /api/build/prune', () => {
  let site: ContentTestSite;
  afterEach(async () => {
    await site.close();
  });

  const versionsOf = (env: string) => {
    const app = site.platform.app;
    const root = siteEnvRoot(resolve(app.trellis.config.CMS_DATA_DIR), site.graph.name, env);
    // `.spare-*` (a pruned version the next build recycles) and `.staging-*` are not versions
    return existsSync(join(root, 'versions'))
      ? readdirSync(join(root, 'versions'))
          .filter((name) => !name.startsWith('.'))
          .sort()
      : [];
  };
  const sparesOf = (env: string) => {
    const app = site.platform.app;
    const root = siteEnvRoot(resolve(app.trellis.config.CMS_DATA_DIR), site.graph.name, env);
    return readdirSync(join(root, 'versions')).filter((name) => name.startsWith('.spare-'));
  };

  const buildTwice = async (label: string) => {
    await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: `<h1>${label}</h1>` },
    });
    const result = (
      await site.request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } })
    ).json();
    expect(result.ok).toBe(true);
    return result.buildId as string;
  };

  it('keeps CMS_BUILD_RETENTION versions after each build, and the live page stays served', async () => {
    site = await createContentTestSite({ slug: 'keep', env: { CMS_BUILD_RETENTION: '2' } });
    await seedBlog(site);
    const ids: string[] = [];
    for (const label of ['one', 'two', 'three', 'four']) ids.push(await buildTwice(label));
    expect(versionsOf('dev')).toEqual([ids[2], ids[3]].sort());
    // The newest pruned version is kept aside, and the next build takes its folder (recycled,
    // not made anew): the page it serves is still the new one.
    expect(sparesOf('dev')).toEqual([`.spare-${ids[1]}`]);
    const envRoot = siteEnvRoot(
      resolve(site.platform.app.trellis.config.CMS_DATA_DIR),
      site.graph.name,
      'dev',
    );
    const spareInode = statSync(join(envRoot, 'versions', `.spare-${ids[1]}`)).ino;
    ids.push(await buildTwice('five'));
    expect(statSync(join(envRoot, 'versions', ids[4]!)).ino).toBe(spareInode);
    expect(versionsOf('dev')).toEqual([ids[3], ids[4]].sort());
    // The site's folder is found by its slug.
    const bySlug = join(resolve(site.platform.app.trellis.config.CMS_DATA_DIR), 'sites', 'by-slug', 'keep');
    expect(
      readFileSync(join(bySlug, 'dev', 'current', 'posts', 'hello-world', 'index.html'), 'utf8'),
    ).toContain('<h1>five</h1>');
    const page = await site.platform.app.inject({ method: 'GET', url: '/sites/keep/dev/posts/hello-world/' });
    expect(page.body).toContain('<h1>five</h1>');
    // The history keeps every build; rolling back to a pruned one is refused, not served half.
    const history = (await site.request({ method: 'GET', url: '/api/build/history?env=dev' })).json();
    expect(history.map((b: { buildId: string }) => b.buildId)).toEqual(expect.arrayContaining(ids));
  });

  it('prunes on demand with keep, never the live version, audited; 0 retention keeps every version', async () => {
    site = await createContentTestSite({ slug: 'manual', env: { CMS_BUILD_RETENTION: '0' } });
    await seedBlog(site);
    const ids: string[] = [];
    for (const label of ['one', 'two', 'three']) ids.push(await buildTwice(label));
    expect(versionsOf('dev')).toHaveLength(3);
    // The oldest is live again: prune keeps it although it is not among the newest.
    const rolled = await site.request({ method: 'POST', url: `/api/build/rollback/${ids[0]}` });
    expect(rolled.statusCode).toBe(200);

    const pruned = await site.request({
      method: 'POST',
      url: '/api/build/prune',
      payload: { env: 'dev', keep: 1 },
    });
    expect(pruned.statusCode).toBe(200);
    expect(pruned.json()).toEqual({ envId: 'env:dev', removed: [ids[1]], kept: 2 });
    expect(versionsOf('dev')).toEqual([ids[0], ids[2]].sort());
    const page = await site.platform.app.inject({
      method: 'GET',
      url: '/sites/manual/dev/posts/hello-world/',
    });
    expect(page.body).toContain('<h1>one</h1>');

    const audit = (await site.request({ method: 'GET', url: '/api/audit?action=build.prune' })).json();
    expect(JSON.stringify(audit)).toContain(ids[1]);

    const unknown = await site.request({
      method: 'POST',
      url: '/api/build/prune',
      payload: { env: 'staging' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('unknown_environment');
    const bad = await site.request({ method: 'POST', url: '/api/build/prune', payload: { keep: 0 } });
    expect(bad.statusCode).toBe(400);
  });
});
