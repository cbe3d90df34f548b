import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

type HolderView = { kind: string; id: string; cascades: boolean };
const named = (holders: HolderView[]) => holders.map((holder) => `${holder.kind} ${holder.id}`).sort();

describe('DELETE /api/templates/{name}', () => {
  let site: ContentTestSite;
  const auditLength = async () => (await site.graph.auditRecords()).length;
  const post = async (url: string, payload: Record<string, unknown>) => {
    const response = await site.request({ method: 'POST', url, payload });
    expect(response.statusCode, response.body).toBe(201);
  };

  beforeEach(async () => {
    site = await createContentTestSite();
  });
  afterEach(async () => {
    await site.close();
  });

  it('deletes a template nothing holds, with all its versions (204, then 404), audited', async () => {
    await post('/api/templates', { name: 'spare', content: 'v1' });
    const updated = await site.request({
      method: 'PUT',
      url: '/api/templates/spare',
      payload: { content: 'v2' },
    });
    expect(updated.json().version).toBe(2);
    const deleted = await site.request({ method: 'DELETE', url: '/api/templates/spare' });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await site.request({ method: 'GET', url: '/api/templates/spare' })).statusCode).toBe(404);
    expect((await site.request({ method: 'GET', url: '/api/templates/spare/versions' })).statusCode).toBe(
      404,
    );
    expect(
      (
        await site.graph.findNodes({
          label: 'TemplateVersion',
          where: [{ prop: 'name', op: 'eq', value: 'spare' }],
        })
      ).total,
    ).toBe(0);
    expect((await site.graph.auditRecords()).at(-1)).toMatchObject({
      action: 'template.delete',
      target: 'template:spare',
      data: { version: 2, versions: 2 },
    });
    // Created again, it starts over at version 1.
    await post('/api/templates', { name: 'spare', content: 'again' });
    expect((await site.request({ method: 'GET', url: '/api/templates/spare' })).json().version).toBe(1);
  });

  it('refuses a template in use, naming every holder, even with ?cascade=1; writes nothing', async () => {
    await seedBlog(site);
    await post('/api/templates', { name: '_card', content: '<div>{{ item.title }}</div>' });
    await post('/api/templates', { name: 'teaser', content: "{% render '_card', item: item %}" });
    await post('/api/views', {
      name: 'archive',
      path: '/archive/',
      template: '_card',
      paginate: { type: 'post' },
    });
    await post('/api/block-types', { name: 'card', label: 'Card', fields: [], template: '_card' });
    await post('/api/transforms', {
      id: 'summary',
      name: 'Summary',
      event: 'beforeRender',
      kind: 'template',
      field: 'body',
      template: '_card',
    });
    await post('/api/widgets', { name: 'latest', area: 'sidebar', template: "{% include '_card' %}" });
    const before = await auditLength();
    for (const url of ['/api/templates/_card', '/api/templates/_card?cascade=1']) {
      const refused = await site.request({ method: 'DELETE', url });
      expect(refused.statusCode, url).toBe(409);
      expect(refused.json().code).toBe('in_use');
      expect(named(refused.json().holders)).toEqual([
        'block-type card',
        'template teaser',
        'transform summary',
        'view archive',
        'widget latest',
      ]);
      expect(refused.json().holders.every((holder: HolderView) => !holder.cascades)).toBe(true);
    }
    const route = await site.request({ method: 'DELETE', url: '/api/templates/home' });
    expect(route.statusCode).toBe(409);
    expect(named(route.json().holders)).toEqual(['route home']);
    expect(route.json().error).toBe('Template `home` cannot be deleted; it is still used by route `home`.');
    expect(await auditLength()).toBe(before);
    expect((await site.request({ method: 'GET', url: '/api/templates/_card' })).statusCode).toBe(200);
  });

  it('refuses the template that renders a type’s pages, and allows it once disabled', async () => {
    await seedBlog(site);
    const refused = await site.request({ method: 'DELETE', url: '/api/templates/post' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().holders).toEqual([
      {
        kind: 'type',
        id: 'post',
        detail: 'renders its pages (disable post, or bind another template to post, first)',
        cascades: false,
      },
    ]);
    const disabled = await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { enabled: false },
    });
    expect(disabled.statusCode).toBe(200);
    const deleted = await site.request({ method: 'DELETE', url: '/api/templates/post' });
    expect(deleted.statusCode).toBe(204);
  });
});
