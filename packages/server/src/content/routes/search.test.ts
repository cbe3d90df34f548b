import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

/**
 * Full-text search (`q` on GET /api/content/{type}) matches what users wrote in the type's text
 * fields — not the bookkeeping an item node also holds (status, user ids, hashes, dates).
 */
let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
  await site.createType({
    name: 'person',
    label: 'Person',
    nodeLabel: 'Person',
    keyField: 'name',
    fields: [{ name: 'name', type: 'string', required: true }],
  });
  await site.createType({
    name: 'article',
    label: 'Article',
    nodeLabel: 'Article',
    keyField: 'title',
    fields: [
      { name: 'title', type: 'string', required: true },
      { name: 'summary', type: 'text' },
      { name: 'body', type: 'markdown' },
      { name: 'tags', type: 'stringlist' },
      { name: 'state', type: 'enum', values: ['idea', 'final'] },
      { name: 'words', type: 'number' },
      { name: 'editor', type: 'reference', target: 'person' },
    ],
  });
});
afterEach(async () => {
  await site.close();
});

const post = (url: string, payload: unknown, headers?: Record<string, string>) =>
  site.request({ method: 'POST', url, payload: payload as Record<string, unknown>, headers });
const search = async (q: string, type = 'article') => {
  const response = await site.request({
    method: 'GET',
    url: `/api/content/${type}?withMeta=1&q=${encodeURIComponent(q)}`,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().items as Array<{ id: string }>).map((item) => item.id).sort();
};

describe('full-text search', () => {
  it('matches the text fields of the type, not status, user ids or other bookkeeping', async () => {
    expect((await post('/api/content/person', { name: 'Ann Lee' })).statusCode).toBe(201);
    // Written by a user, whose id the item node records.
    const alice = await site.platform.addUser({ name: 'alice', siteId: site.siteId, role: 'editor' });
    const asAlice = { authorization: `Bearer ${alice.key}` };
    const created = await post(
      '/api/content/article',
      {
        title: 'Volcano diary',
        summary: 'Notes from the crater rim',
        body: '## Lava\nIt glows at **night**.',
        tags: ['geology', 'travel'],
        state: 'final',
        words: 1234,
        editor: 'person:ann-lee',
      },
      asAlice,
    );
    expect(created.statusCode, created.body).toBe(201);
    await post('/api/content/article', { title: 'Quiet lake', summary: 'A first draft about a lake' });
    await post('/api/content/article', { title: 'Harbour lights' });
    const node = await site.graph.getNode('article:volcano-diary');
    // The writer (API keys act under their own id) and the user behind it.
    const actor = String(node?.props.createdBy);
    expect(actor).toBe(`key:${alice.keyId.replace(/^key:/, '')}`);

    // Every item is a draft, but only the one whose text says so matches.
    expect(await search('draft')).toEqual(['article:quiet-lake']);
    expect(await search(actor)).toEqual([]);
    expect(await search(alice.userId)).toEqual([]);
    expect(await search(alice.userId.slice('user:'.length))).toEqual([]);
    expect(await search('alice')).toEqual([]);
    expect(await search(String(node?.props.hash))).toEqual([]);
    // Words of string, text, markdown and stringlist fields match.
    expect(await search('volcano')).toEqual(['article:volcano-diary']);
    expect(await search('crater')).toEqual(['article:volcano-diary']);
    expect(await search('glows night')).toEqual(['article:volcano-diary']);
    expect(await search('geology')).toEqual(['article:volcano-diary']);
    // Enum values, numbers and references are not text.
    expect(await search('final')).toEqual([]);
    expect(await search('1234')).toEqual([]);
    expect(await search('ann')).toEqual([]);
    expect(await search('ann', 'person')).toEqual(['person:ann-lee']);

    // An edit replaces the text; publishing (bookkeeping only) keeps it.
    const patched = await site.request({
      method: 'PATCH',
      url: '/api/content/article/article:volcano-diary',
      payload: { summary: 'Notes from the summit' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await search('crater')).toEqual([]);
    expect(await search('summit')).toEqual(['article:volcano-diary']);
    const published = await post('/api/content/article/article:volcano-diary/publish', {});
    expect(published.statusCode, published.body).toBe(200);
    expect(await search('published')).toEqual([]);
    expect(await search('prod')).toEqual([]);
    expect(await search('summit volcano')).toEqual(['article:volcano-diary']);
  });

  it('indexes imported items by their text, and reindexes a type whose text fields change', async () => {
    const imported = await post('/api/import/json', {
      typeName: 'article',
      records: [
        { title: 'Imported tide tables', state: 'idea' },
        { title: 'Imported draft', state: 'final' },
      ],
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(await search('imported')).toEqual(['article:imported-draft', 'article:imported-tide-tables']);
    expect(await search('draft')).toEqual(['article:imported-draft']);
    expect(await search('idea')).toEqual([]);

    // `state` becomes a text field: its values become searchable without any item write.
    const type = (await site.request({ method: 'GET', url: '/api/types/article' })).json() as {
      fields: Array<{ name: string; type: string; values?: string[] }>;
    };
    const fields = type.fields.map((field) =>
      field.name === 'state' ? { name: 'state', type: 'string' } : field,
    );
    const changed = await site.request({ method: 'PATCH', url: '/api/types/article', payload: { fields } });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(await search('idea')).toEqual(['article:imported-tide-tables']);
  });
});
