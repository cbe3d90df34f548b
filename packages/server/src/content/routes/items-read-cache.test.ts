import { afterEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import type { Graph } from '../../engines/port';
import { bytesTag } from '../../shared/entity-tag';

let site: ContentTestSite;
afterEach(async () => {
  await site?.close();
});

async function withTypes(env: Record<string, string> = {}): Promise<ContentTestSite> {
  site = await createContentTestSite({ env });
  await site.createType({
    name: 'person',
    label: 'Person',
    nodeLabel: 'Person',
    keyField: 'name',
    fields: [{ name: 'name', type: 'string', required: true }],
  });
  await site.createType({
    name: 'note',
    label: 'Note',
    nodeLabel: 'Note',
    keyField: 'title',
    fields: [
      { name: 'title', type: 'string', required: true },
      { name: 'text', type: 'text' },
    ],
  });
  for (const payload of [{ name: 'Ann' }, { name: 'Bob' }]) {
    expect((await site.request({ method: 'POST', url: '/api/content/person', payload })).statusCode).toBe(
      201,
    );
  }
  const note = await site.request({
    method: 'POST',
    url: '/api/content/note',
    payload: { title: 'First', text: 'one' },
  });
  expect(note.statusCode, note.body).toBe(201);
  return site;
}

const NOTE = '/api/content/note/note:first';
const read = async () => {
  const response = await site.request({ method: 'GET', url: NOTE });
  return { status: response.statusCode, etag: response.headers.etag, body: response.json() };
};

/** The site graph as the engine the app was given (not the app's wrapper): another instance's view. */
async function graphBehindTheAppsBack(): Promise<Graph> {
  const graph = await site.platform.engine.openGraph(site.graph.name);
  if (!graph) throw new Error('no site graph');
  return graph;
}

describe('GET one item through the item read cache', () => {
  it('shows every write made through this instance on the next read: item, edges, type, direct graph writes, delete', async () => {
    await withTypes({ CONTENT_READ_CACHE_MS: '60000' });
    expect(await read()).toMatchObject({ status: 200, etag: '"1"', body: { fields: { text: 'one' } } });

    const patched = await site.request({ method: 'PATCH', url: NOTE, payload: { fields: { text: 'two' } } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await read()).toMatchObject({ status: 200, etag: '"2"', body: { fields: { text: 'two' } } });

    // An edge the type does not declare yet (the edge import refuses those, so straight to the
    // graph), then a type change that makes it a relationship.
    await site.graph.mergeEdge({ from: 'note:first', type: 'WRITTEN_BY', to: 'person:ann', props: {} });
    expect((await read()).body.relationships).toEqual({});
    const typePatch = await site.request({
      method: 'PATCH',
      url: '/api/types/note',
      payload: {
        relationships: [{ name: 'author', edgeLabel: 'WRITTEN_BY', target: 'person', kind: 'many-to-one' }],
      },
    });
    expect(typePatch.statusCode, typePatch.body).toBe(200);
    expect((await read()).body.relationships).toEqual({ author: 'person:ann' });
    // Through the edge routes: the one target removed, another imported.
    const removed = await site.request({
      method: 'POST',
      url: '/api/import/edges/remove',
      payload: { edges: [{ from: 'note:first', edge: 'WRITTEN_BY', to: 'person:ann' }] },
    });
    expect(removed.json(), removed.body).toMatchObject({ removed: 1 });
    expect((await read()).body.relationships).toEqual({});
    const more = await site.request({
      method: 'POST',
      url: '/api/import/edges',
      payload: { edges: [{ from: 'note:first', edge: 'WRITTEN_BY', to: 'person:bob' }] },
    });
    expect(more.json(), more.body).toMatchObject({ merged: 1, failed: 0 });
    expect((await read()).body.relationships).toEqual({ author: 'person:bob' });

    // A write straight to the graph the app hands out (as the importer, releases or a plugin do).
    const node = await site.graph.getNode('note:first');
    await site.graph.updateNode('note:first', { props: { ...node!.props, text: 'direct' } });
    expect((await read()).body.fields.text).toBe('direct');

    expect((await site.request({ method: 'DELETE', url: NOTE })).statusCode).toBe(204);
    expect((await read()).status).toBe(404);
  });

  it('serves its entry until a write through this instance retires it; CONTENT_READ_CACHE_MS=0 turns it off', async () => {
    await withTypes({ CONTENT_READ_CACHE_MS: '60000' });
    expect((await read()).body.fields.text).toBe('one');
    // Another instance (a second handle on the graph) changes the item: within the TTL this
    // instance still answers what it read (the documented staleness bound)...
    const other = await graphBehindTheAppsBack();
    const node = await other.getNode('note:first');
    await other.updateNode('note:first', { props: { ...node!.props, text: 'elsewhere' } });
    expect((await read()).body.fields.text).toBe('one');
    // ...and any write of its own to the site graph retires the entry.
    await site.createType({
      name: 'tag',
      label: 'Tag',
      nodeLabel: 'Tag',
      keyField: 'label',
      fields: [{ name: 'label', type: 'string', required: true }],
    });
    expect((await read()).body.fields.text).toBe('elsewhere');
    await site.close();

    await withTypes({ CONTENT_READ_CACHE_MS: '0' });
    expect((await read()).body.fields.text).toBe('one');
    const uncached = await graphBehindTheAppsBack();
    const first = await uncached.getNode('note:first');
    await uncached.updateNode('note:first', { props: { ...first!.props, text: 'elsewhere' } });
    expect((await read()).body.fields.text).toBe('elsewhere');
  });

  it('keeps lists by their query: a write through this instance retires them, another instance shows within the TTL, 0 turns it off', async () => {
    const list = async (query: string) => {
      const response = await site.request({ method: 'GET', url: `/api/content/note?${query}` });
      return {
        status: response.statusCode,
        total: response.headers['x-total-count'],
        etag: response.headers.etag,
        body: response.json(),
      };
    };
    const texts = (body: { items: Array<{ fields: { text?: string } }> }) =>
      body.items.map((item) => item.fields.text);
    await withTypes({ CONTENT_READ_CACHE_MS: '60000' });
    const first = await list('withMeta=true&limit=50');
    expect(first).toMatchObject({ status: 200, total: '1', body: { total: 1, limit: 50, offset: 0 } });
    expect(texts(first.body)).toEqual(['one']);
    // Its tag is the hash of its bytes (kept with the entry, not hashed again on a hit).
    expect(first.etag).toBe(bytesTag(JSON.stringify(first.body)));
    // The same list again answers the same bytes and tag; a 304 to its tag.
    expect(await list('withMeta=true&limit=50')).toEqual(first);
    const conditional = await site.request({
      method: 'GET',
      url: '/api/content/note?withMeta=true&limit=50',
      headers: { 'if-none-match': first.etag as string },
    });
    expect(conditional.statusCode).toBe(304);
    // Another instance changes the item: this instance keeps its answer within the TTL...
    const other = await graphBehindTheAppsBack();
    const node = await other.getNode('note:first');
    await other.updateNode('note:first', { props: { ...node!.props, text: 'elsewhere' } });
    expect(texts((await list('withMeta=true&limit=50')).body)).toEqual(['one']);
    // ...another query is its own entry (read now)...
    expect(
      (await list('limit=50')).body.map((item: { fields: { text: string } }) => item.fields.text),
    ).toEqual(['elsewhere']);
    expect((await list("withMeta=1&limit=50&where=text == 'elsewhere'")).body.total).toBe(1);
    // ...and a write of its own to the site graph retires every list of the site.
    const created = await site.request({
      method: 'POST',
      url: '/api/content/note',
      payload: { title: 'Second', text: 'two' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const after = await list('withMeta=true&limit=50');
    expect(after.total).toBe('2');
    expect(texts(after.body)).toEqual(['elsewhere', 'two']);
    expect(after.etag).toBe(bytesTag(JSON.stringify(after.body)));
    expect(after.etag).not.toBe(first.etag);
    // A refused query is never kept: still 400.
    for (let i = 0; i < 2; i += 1) expect((await list('where=nope == 1')).status).toBe(400);
    await site.close();

    await withTypes({ CONTENT_READ_CACHE_MS: '0' });
    expect(texts((await list('withMeta=true')).body)).toEqual(['one']);
    const uncached = await graphBehindTheAppsBack();
    const stored = await uncached.getNode('note:first');
    await uncached.updateNode('note:first', { props: { ...stored!.props, text: 'elsewhere' } });
    const fresh = await list('withMeta=true');
    expect(texts(fresh.body)).toEqual(['elsewhere']);
    expect(fresh.etag).toBe(bytesTag(JSON.stringify(fresh.body)));
  });

  it('answers a hit byte for byte as the read that filled it (relationships, headers, 304), and reads every request through with the cache off', async () => {
    const place = {
      name: 'place',
      label: 'Place',
      nodeLabel: 'Place',
      keyField: 'slug',
      fields: [
        { name: 'slug', type: 'string', required: true },
        { name: 'about', type: 'text' },
      ],
      relationships: [{ name: 'near', edgeLabel: 'NEAR', target: 'place', kind: 'many-to-many' }],
    };
    const seed = async () => {
      await site.createType(place);
      for (const payload of [
        { slug: 'b', about: 'bee' },
        { slug: 'c', about: 'sea' },
        { slug: 'a', about: 'ay', relationships: { near: ['place:c', 'place:b'] } },
      ]) {
        const created = await site.request({ method: 'POST', url: '/api/content/place', payload });
        expect(created.statusCode, created.body).toBe(201);
      }
    };
    const get = (headers: Record<string, string> = {}) =>
      site.request({ method: 'GET', url: '/api/content/place/place:a', headers });
    const sent = (response: Awaited<ReturnType<typeof get>>) => ({
      status: response.statusCode,
      body: response.body,
      etag: response.headers.etag,
      type: response.headers['content-type'],
      length: response.headers['content-length'],
    });

    site = await createContentTestSite({ env: { CONTENT_READ_CACHE_MS: '60000' } });
    await seed();
    const filled = sent(await get());
    expect(filled.status).toBe(200);
    expect(JSON.parse(filled.body).relationships).toEqual({ near: ['place:b', 'place:c'] });
    // Changed behind the app's back: the next answer is the hit, the same bytes as the miss.
    const other = await graphBehindTheAppsBack();
    const stored = await other.getNode('place:a');
    await other.updateNode('place:a', { props: { ...stored!.props, about: 'elsewhere' } });
    expect(sent(await get())).toEqual(filled);
    const notModified = await get({ 'if-none-match': filled.etag as string });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    await site.close();

    site = await createContentTestSite({ env: { CONTENT_READ_CACHE_MS: '0' } });
    await seed();
    const first = sent(await get());
    expect(sent(await get())).toEqual(first);
    expect((await get({ 'if-none-match': first.etag as string })).statusCode).toBe(304);
    const patched = await site.request({
      method: 'PATCH',
      url: '/api/content/place/place:a',
      payload: { about: 'changed', relationships: { near: ['place:b'] } },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const after = sent(await get());
    expect(after.etag).toBe('"2"');
    expect(JSON.parse(after.body)).toEqual(patched.json());
    expect(JSON.parse(after.body)).toMatchObject({
      fields: { about: 'changed' },
      relationships: { near: ['place:b'] },
    });
    const behind = await graphBehindTheAppsBack();
    const now = await behind.getNode('place:a');
    await behind.updateNode('place:a', { props: { ...now!.props, about: 'elsewhere' } });
    expect(JSON.parse(sent(await get()).body).fields.about).toBe('elsewhere');
  });

  it('keeps entries per site, per type in the path and per item', async () => {
    await withTypes({ CONTENT_READ_CACHE_MS: '60000' });
    expect((await read()).status).toBe(200);
    // The same id under another type is still refused after the item was cached.
    expect(
      (await site.request({ method: 'GET', url: '/api/content/person/note:first' })).statusCode,
    ).not.toBe(200);
    expect(
      (await site.request({ method: 'GET', url: '/api/content/person/person:ann' })).json().fields,
    ).toEqual({
      name: 'Ann',
    });
    // Another site with an item of the same id answers its own item.
    const other = await site.platform.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { authorization: site.headers.authorization },
      payload: { name: 'Other', slug: 'other-site', starterKit: 'none' },
    });
    const otherId = other.json().id as string;
    const headers = { 'x-site-id': otherId };
    await site.request({
      method: 'POST',
      url: '/api/types',
      headers,
      payload: {
        name: 'note',
        label: 'Note',
        nodeLabel: 'Note',
        keyField: 'title',
        fields: [
          { name: 'title', type: 'string', required: true },
          { name: 'text', type: 'text' },
        ],
      },
    });
    await site.request({
      method: 'POST',
      url: '/api/content/note',
      headers,
      payload: { title: 'First', text: 'mine' },
    });
    const theirs = await site.request({ method: 'GET', url: NOTE, headers });
    expect(theirs.json().fields.text).toBe('mine');
    expect((await read()).body.fields.text).toBe('one');
  });
});

describe('the auth hook through the access cache', () => {
  it('sees a removed member, a lowered role, a revoked key and a deleted site on the next request', async () => {
    await withTypes({ ACCESS_CACHE_MS: '60000' });
    const editor = await site.platform.addUser({ name: 'eddie', siteId: site.siteId, role: 'editor' });
    const writer = await site.platform.addUser({ name: 'wanda', siteId: site.siteId, role: 'editor' });
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    const patchAs = (key: string, text: string) =>
      site.request({ method: 'PATCH', url: NOTE, headers: as(key), payload: { fields: { text } } });

    expect((await site.request({ method: 'GET', url: NOTE, headers: as(editor.key) })).statusCode).toBe(200);
    expect((await patchAs(writer.key, 'by wanda')).statusCode).toBe(200);

    // Lowered role: viewers may read, not write.
    const lowered = await site.request({
      method: 'PUT',
      url: `/api/auth/users/${writer.userId}/role`,
      payload: { role: 'viewer' },
    });
    expect(lowered.statusCode, lowered.body).toBe(200);
    expect((await patchAs(writer.key, 'again')).statusCode).toBe(403);

    // Removed member.
    const removed = await site.request({ method: 'DELETE', url: `/api/auth/users/${editor.userId}` });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await site.request({ method: 'GET', url: NOTE, headers: as(editor.key) })).statusCode).toBe(403);

    // Revoked key.
    expect((await site.request({ method: 'GET', url: NOTE, headers: as(writer.key) })).statusCode).toBe(200);
    const revoked = await site.request({ method: 'DELETE', url: `/api/auth/api-keys/${writer.keyId}` });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect((await site.request({ method: 'GET', url: NOTE, headers: as(writer.key) })).statusCode).toBe(401);

    // Deleted site.
    const deleted = await site.request({ method: 'DELETE', url: `/api/sites/${site.siteId}` });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await read()).status).toBe(403);
  });

  it('reuses a membership for ACCESS_CACHE_MS when another instance removes it, and not at all with 0', async () => {
    for (const ttl of ['60000', '0']) {
      await withTypes({ ACCESS_CACHE_MS: ttl });
      const editor = await site.platform.addUser({ name: 'eddie', siteId: site.siteId, role: 'editor' });
      const headers = { authorization: `Bearer ${editor.key}` };
      expect((await site.request({ method: 'GET', url: NOTE, headers })).statusCode).toBe(200);
      // Another instance removes the membership (a second handle on the platform graph).
      const platform = await site.platform.engine.openGraph('platform');
      expect(await platform!.deleteEdge({ from: editor.userId, type: 'MEMBER_OF', to: site.siteId })).toBe(
        true,
      );
      expect((await site.request({ method: 'GET', url: NOTE, headers })).statusCode).toBe(
        ttl === '0' ? 403 : 200,
      );
      await site.close();
    }
  });
});
