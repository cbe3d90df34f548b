import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

const note = {
  name: 'note',
  label: 'Note',
  nodeLabel: 'Note',
  keyField: 'title',
  fields: [{ name: 'title', type: 'string', required: true }],
};

describe('DELETE /api/types/{name}', () => {
  let site: ContentTestSite;
  const auditLength = async () => (await site.graph.auditRecords()).length;

  beforeEach(async () => {
    site = await createContentTestSite();
  });
  afterEach(async () => {
    await site.close();
  });

  it('deletes a type nothing holds: 204 with no body, then 404, audited', async () => {
    await site.createType(note);
    const deleted = await site.request({ method: 'DELETE', url: '/api/types/note' });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await site.request({ method: 'GET', url: '/api/types/note' })).statusCode).toBe(404);
    expect((await site.request({ method: 'GET', url: '/api/types' })).json()).toEqual([]);
    expect((await site.graph.auditRecords()).at(-1)).toMatchObject({
      action: 'type.delete',
      target: 'type:note',
      data: { cascade: false, deletedItems: 0 },
    });
    const again = await site.request({ method: 'DELETE', url: '/api/types/note' });
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('not_found');
  });

  it('refuses a type with items (409 in_use naming them, nothing written); ?cascade=1 deletes the items with it', async () => {
    await site.createType(note);
    for (const title of ['One', 'Two']) {
      const created = await site.request({ method: 'POST', url: '/api/content/note', payload: { title } });
      expect(created.statusCode).toBe(201);
    }
    const before = await auditLength();
    const refused = await site.request({ method: 'DELETE', url: '/api/types/note' });
    expect(refused.statusCode).toBe(409);
    const body = refused.json();
    expect(body).toMatchObject({ code: 'in_use', holderCount: 2 });
    expect(body.holders).toEqual([
      { kind: 'item', id: 'note:one', cascades: true },
      { kind: 'item', id: 'note:two', cascades: true },
    ]);
    expect(body.error).toContain(
      'Content type `note` cannot be deleted; it is still used by 2 items (note:one, note:two).',
    );
    expect(body.hint).toContain('?cascade=1');
    expect(await auditLength()).toBe(before);
    expect((await site.request({ method: 'GET', url: '/api/types/note' })).statusCode).toBe(200);
    expect((await site.request({ method: 'GET', url: '/api/content/note/note:one' })).statusCode).toBe(200);

    const cascaded = await site.request({ method: 'DELETE', url: '/api/types/note?cascade=1' });
    expect(cascaded.statusCode).toBe(204);
    expect((await site.request({ method: 'GET', url: '/api/types/note' })).statusCode).toBe(404);
    expect(await site.graph.getNode('note:one')).toBeNull();
    expect(await site.graph.getNode('note:two')).toBeNull();
    const written = (await site.graph.auditRecords()).slice(before);
    expect(written.map((record) => `${record.action} ${record.target}`)).toEqual([
      'content.delete note:one',
      'content.delete note:two',
      'type.delete type:note',
    ]);
    expect(written[0]?.data).toMatchObject({ cascadeOf: 'type:note' });
    expect(written[2]?.data).toMatchObject({ cascade: true, deletedItems: 2 });
  });

  it('takes the cascaded items that are live down, in one live revision per environment', async () => {
    await site.createType(note);
    await site.request({ method: 'POST', url: '/api/content/note', payload: { title: 'One' } });
    await site.request({ method: 'POST', url: '/api/content/note', payload: { title: 'Two' } });
    const published = await site.request({
      method: 'POST',
      url: '/api/publish',
      payload: { env: 'prod', ids: ['note:one', 'note:two'] },
    });
    expect(published.statusCode).toBe(200);
    const liveBefore = await site.request({ method: 'GET', url: '/api/releases/live?envId=env:prod' });
    expect(liveBefore.json().items).toHaveLength(2);
    const cascaded = await site.request({ method: 'DELETE', url: '/api/types/note?cascade=1' });
    expect(cascaded.statusCode).toBe(204);
    const live = (await site.request({ method: 'GET', url: '/api/releases/live?envId=env:prod' })).json();
    expect(live.items).toEqual([]);
    expect(live.revision).toBe(liveBefore.json().revision + 1);
  });

  it('refuses, even with ?cascade=1, while definitions name the type; writes nothing', async () => {
    await seedBlog(site);
    await site.createType({
      ...note,
      fields: [...note.fields, { name: 'about', type: 'reference', target: 'post' }],
      relationships: [{ name: 'posts', edgeLabel: 'ABOUT', target: 'post', kind: 'many-to-many' }],
    });
    const listing = await site.request({
      method: 'POST',
      url: '/api/routes',
      payload: {
        slug: 'all-posts',
        path: '/posts/',
        kind: 'listing',
        template: 'home',
        paginate: { type: 'post' },
      },
    });
    expect(listing.statusCode).toBe(201);
    const before = await auditLength();
    for (const url of ['/api/types/post', '/api/types/post?cascade=1']) {
      const refused = await site.request({ method: 'DELETE', url });
      expect(refused.statusCode, url).toBe(409);
      const body = refused.json();
      const holders = body.holders.map(
        (holder: { kind: string; id: string }) => `${holder.kind} ${holder.id}`,
      );
      expect(holders).toEqual(expect.arrayContaining(['type note', 'template post', 'route all-posts']));
      expect(body.holders.filter((holder: { cascades: boolean }) => !holder.cascades)).toHaveLength(4);
      if (url.endsWith('cascade=1')) {
        expect(holders.some((holder: string) => holder.startsWith('item '))).toBe(false);
        expect(body.hint).not.toContain('?cascade=1');
      } else {
        expect(holders).toContain('item post:hello-world');
      }
    }
    expect(await auditLength()).toBe(before);
    expect(
      (await site.request({ method: 'GET', url: '/api/content/post/post:hello-world' })).statusCode,
    ).toBe(200);
  });
});
