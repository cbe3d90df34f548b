import { contentHash } from '@trelliscms/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
  await site.createType({
    name: 'person',
    label: 'Person',
    nodeLabel: 'Person',
    keyField: 'name',
    fields: [
      { name: 'name', type: 'string', required: true },
      { name: 'email', type: 'string', unique: true, regex: '^[^@\\s]+@[^@\\s]+$' },
    ],
  });
  await site.createType({
    name: 'article',
    label: 'Article',
    nodeLabel: 'Article',
    keyField: 'title',
    fields: [
      { name: 'title', type: 'string', required: true, minLength: 2, maxLength: 40 },
      { name: 'summary', type: 'text', maxLength: 100 },
      { name: 'body', type: 'markdown' },
      { name: 'rich', type: 'richtext' },
      { name: 'words', type: 'number' },
      { name: 'featured', type: 'boolean', default: false },
      { name: 'day', type: 'date' },
      { name: 'at', type: 'datetime' },
      { name: 'state', type: 'enum', values: ['idea', 'final'], default: 'idea' },
      { name: 'tags', type: 'stringlist', maxLength: 3 },
      { name: 'cover', type: 'image' },
      { name: 'editor', type: 'reference', target: 'person' },
    ],
    relationships: [
      { name: 'author', edgeLabel: 'WRITTEN_BY', target: 'person', kind: 'many-to-one' },
      { name: 'related', edgeLabel: 'RELATED_TO', target: 'article', kind: 'many-to-many' },
    ],
  });
});
afterEach(async () => {
  await site.close();
});

const post = (url: string, payload: unknown, headers?: Record<string, string>) =>
  site.request({ method: 'POST', url, payload: payload as Record<string, unknown>, headers });
const get = (url: string) => site.request({ method: 'GET', url });
const patch = (url: string, payload: unknown, headers?: Record<string, string>) =>
  site.request({ method: 'PATCH', url, payload: payload as Record<string, unknown>, headers });

describe('content items', () => {
  it('creates from a free-form object or {fields, relationships}, with defaults and edges', async () => {
    const ann = await post('/api/content/person', { name: 'Ann Lee', email: 'ann@example.org' });
    expect(ann.statusCode, ann.body).toBe(201);
    expect(ann.json()).toMatchObject({ id: 'person:ann-lee', type: 'person', status: 'draft', version: 1 });
    expect(ann.headers.etag).toBe('"1"');

    const created = await post('/api/content/article', {
      fields: { title: 'Hello world', words: 120, tags: ['a'], editor: 'person:ann-lee' },
      relationships: { author: 'person:ann-lee' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const record = created.json();
    expect(record).toMatchObject({
      id: 'article:hello-world',
      type: 'article',
      fields: {
        title: 'Hello world',
        words: 120,
        featured: false,
        state: 'idea',
        tags: ['a'],
        editor: 'person:ann-lee',
      },
      relationships: { author: 'person:ann-lee' },
      body: { blocks: [] },
    });
    expect(record.hash).toBe(contentHash({ fields: record.fields, body: record.body }));
    expect(await site.graph.getEdges({ from: 'article:hello-world' })).toEqual([
      { from: 'article:hello-world', type: 'WRITTEN_BY', to: 'person:ann-lee', props: {} },
    ]);

    const explicitId = await post('/api/content/article', { id: 'article:custom', title: 'Another one' });
    expect(explicitId.json().id).toBe('article:custom');
    const again = await post('/api/content/article', { title: 'Hello world' });
    expect(again.statusCode).toBe(409);
  });

  it('validates every field type and rule, naming the field (400)', async () => {
    await post('/api/content/person', { name: 'Ann' });
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ summary: 'no title' }, 'field `title` is required'],
      [{ title: 'x' }, 'field `title` must be at least 2 characters'],
      [{ title: 'x'.repeat(41) }, 'field `title` must be at most 40 characters'],
      [{ title: 'ok', summary: 5 }, 'field `summary` must be a string'],
      [{ title: 'ok', body: ['x'] }, 'field `body` must be a string'],
      [{ title: 'ok', rich: 5 }, 'field `rich` must be a string or a rich-text document'],
      [{ title: 'ok', words: 'ten' }, 'field `words` must be a finite number'],
      [{ title: 'ok', featured: 'yes' }, 'field `featured` must be true or false'],
      [{ title: 'ok', day: '2026-02-30' }, 'field `day` must be a date'],
      [{ title: 'ok', at: 'yesterday' }, 'field `at` must be an ISO 8601 date-time'],
      [{ title: 'ok', state: 'draft' }, 'field `state` must be one of idea, final'],
      [{ title: 'ok', tags: ['a', 'b', 'c', 'd'] }, 'field `tags` must have at most 3 entries'],
      [{ title: 'ok', cover: 'cover.png' }, 'field `cover` must be an asset id'],
      [{ title: 'ok', cover: 'asset:nope' }, 'field `cover` points at asset:nope, which does not exist'],
      [{ title: 'ok', editor: 'article:x' }, 'field `editor` must be the id of a person item'],
      [{ title: 'ok', editor: 'person:bob' }, 'field `editor` points at person:bob, which does not exist'],
      [{ title: 'ok', colour: 'red' }, 'field `colour` is not a field of type article'],
      [{ title: 'ok', relationships: { author: 'person:zed' } }, 'field `author` points at person:zed'],
      [{ title: 'ok', relationships: { author: ['person:ann', 'person:ann2'] } }, 'many-to-one'],
    ];
    for (const [payload, message] of bad) {
      const response = await post('/api/content/article', payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error).toContain(message);
    }
    const good = await post('/api/content/article', {
      title: 'All types',
      summary: 'short',
      body: '# md',
      rich: { type: 'doc', content: [] },
      words: 3.5,
      featured: true,
      day: '2024-02-29',
      at: '2026-01-31T09:30:00+01:00',
      state: 'final',
      tags: ['x', 'y'],
      cover: 'https://example.org/c.png',
      editor: 'person:ann',
    });
    expect(good.statusCode, good.body).toBe(201);
    expect((await get('/api/content/article?withMeta=1')).json().total).toBe(1);
  });

  it('enforces unique fields with 409', async () => {
    expect((await post('/api/content/person', { name: 'Ann', email: 'a@x.org' })).statusCode).toBe(201);
    const clash = await post('/api/content/person', { name: 'Other', email: 'a@x.org' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject({ code: 'unique_violation' });
    expect(clash.json().error).toContain('email');
    expect((await get('/api/content/person/person:other')).statusCode).toBe(404);
    expect((await post('/api/content/person', { name: 'Bad', email: 'not an email' })).statusCode).toBe(400);
  });

  it('reads by full id (404 otherwise), patches partially, deletes (204, then 404)', async () => {
    await post('/api/content/person', { name: 'Ann' });
    await post('/api/content/article', { title: 'First', words: 1, summary: 'keep me' });
    expect((await get('/api/content/article/article:nope')).statusCode).toBe(404);
    expect((await get('/api/content/person/article:first')).statusCode).toBe(400);

    const read = await get('/api/content/article/article:first');
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('"1"');

    const changed = await patch('/api/content/article/article:first', {
      words: 2,
      summary: null,
      relationships: { author: 'person:ann' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().fields).toEqual({ title: 'First', words: 2, featured: false, state: 'idea' });
    expect(changed.json()).toMatchObject({ version: 2, relationships: { author: 'person:ann' } });
    expect(changed.headers.etag).toBe('"2"');
    expect((await patch('/api/content/article/article:first', { words: 'x' })).statusCode).toBe(400);
    expect((await patch('/api/content/article/article:nope', { words: 1 })).statusCode).toBe(404);

    const deleted = await site.request({ method: 'DELETE', url: '/api/content/article/article:first' });
    expect(deleted.statusCode).toBe(204);
    expect((await get('/api/content/article/article:first')).statusCode).toBe(404);
    expect(
      (await site.request({ method: 'DELETE', url: '/api/content/article/article:first' })).statusCode,
    ).toBe(404);
    expect(await site.graph.getEdges({ from: 'article:first' })).toEqual([]);
  });

  it('refuses a write against a stale version with 409, by If-Match or by version field', async () => {
    await post('/api/content/article', { title: 'Shared' });
    const first = await patch('/api/content/article/article:shared', { words: 1 }, { 'if-match': '"1"' });
    expect(first.statusCode, first.body).toBe(200);
    const stale = await patch('/api/content/article/article:shared', { words: 2 }, { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const staleBody = await patch('/api/content/article/article:shared', {
      fields: { words: 3 },
      expectedVersion: 1,
    });
    expect(staleBody.statusCode).toBe(409);
    const staleFreeForm = await patch('/api/content/article/article:shared', { words: 3, version: 1 });
    expect(staleFreeForm.statusCode).toBe(409);
    const fresh = await patch('/api/content/article/article:shared', { words: 3, version: 2 });
    expect(fresh.statusCode).toBe(200);
    const staleDelete = await site.request({
      method: 'DELETE',
      url: '/api/content/article/article:shared',
      headers: { 'if-match': '"2"' },
    });
    expect(staleDelete.statusCode).toBe(409);
    expect((await get('/api/content/article/article:shared')).json().fields.words).toBe(3);
  });

  it('lists as a bare array or an envelope whose total ignores limit/offset, with q and status', async () => {
    for (const title of ['Alpha volcano', 'Beta river', 'Gamma volcano', 'Delta lake']) {
      await post('/api/content/article', { title });
    }
    await post('/api/content/article/article:beta-river/publish', undefined);
    const bare = await get('/api/content/article');
    expect(bare.json().map((item: { id: string }) => item.id)).toEqual([
      'article:alpha-volcano',
      'article:beta-river',
      'article:delta-lake',
      'article:gamma-volcano',
    ]);
    const page = (await get('/api/content/article?withMeta=true&limit=2&offset=1')).json();
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.items.map((item: { id: string }) => item.id)).toEqual([
      'article:beta-river',
      'article:delta-lake',
    ]);
    const found = (await get('/api/content/article?withMeta=1&q=volcano')).json();
    expect(found.total).toBe(2);
    expect(found.appliedFilters).toEqual({ q: 'volcano' });
    const published = (await get('/api/content/article?status=published')).json();
    expect(published.map((item: { id: string }) => item.id)).toEqual(['article:beta-river']);
    expect((await get('/api/content/article?limit=1001')).statusCode).toBe(400);
    expect((await get('/api/content/nope')).statusCode).toBe(404);
  });

  it('refuses a block its block type does not allow, naming the block and the field', async () => {
    await post('/api/content/article', { title: 'Checked' });
    const hero = await post('/api/block-types', {
      name: 'hero',
      label: 'Hero',
      fields: [
        { name: 'heading', type: 'string', required: true, maxLength: 20 },
        { name: 'size', type: 'enum', values: ['small', 'large'], default: 'small' },
        { name: 'link', type: 'reference' },
      ],
    });
    expect(hero.statusCode, hero.body).toBe(201);
    await post('/api/block-types', { name: 'banner', label: 'Banner', fields: [], allowedIn: ['page'] });
    const append = (body: Record<string, unknown>) =>
      post('/api/content/article/article:checked/blocks', body);
    const refusals: Array<[Record<string, unknown>, string]> = [
      [
        { blockType: 'carousel', fields: {} },
        'block `carousel`: field `blockType` names no block type of this site (block types: banner, hero)',
      ],
      [{ blockType: 'hero', fields: {} }, 'block `hero`: field `heading` is required'],
      [{ blockType: 'hero', fields: { heading: 'x'.repeat(21) } }, 'block `hero`: field `heading`'],
      [{ blockType: 'hero', fields: { heading: 'Hi', size: 'huge' } }, 'block `hero`: field `size`'],
      [
        { blockType: 'hero', fields: { heading: 'Hi', colour: 'red' } },
        'field `colour` is not a field of block type hero',
      ],
      [
        { blockType: 'hero', fields: { heading: 'Hi', link: 'article:gone' } },
        'field `link` points at article:gone, which does not exist',
      ],
      [
        { blockType: 'banner', fields: {} },
        'block `banner`: field `blockType` is not allowed in article items',
      ],
    ];
    for (const [body, message] of refusals) {
      const refused = await append(body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().code).toBe('validation_failed');
      expect(refused.json().error, JSON.stringify(body)).toContain(message);
    }
    // nothing was written
    expect((await get('/api/content/article/article:checked')).json().body.blocks).toEqual([]);
    const accepted = await append({ blockType: 'hero', fields: { heading: 'Hi' } });
    expect(accepted.statusCode, accepted.body).toBe(201);
    // stored as its block type checked it (defaults applied)
    expect(accepted.json().block.data).toEqual({ heading: 'Hi', size: 'small' });
  });

  it('appends and removes blocks in the body document', async () => {
    for (const name of ['paragraph', 'quote'])
      await post('/api/block-types', { name, label: name, fields: [{ name: 'text', type: 'text' }] });
    await post('/api/content/article', { title: 'Blocks' });
    await post('/api/content/article', { title: 'Other' });
    const first = await post('/api/content/article/article:blocks/blocks', {
      blockType: 'paragraph',
      fields: { text: 'one' },
    });
    expect(first.statusCode, first.body).toBe(201);
    const second = await post('/api/content/article/article:blocks/blocks', {
      blockType: 'quote',
      fields: { text: 'zero' },
      references: ['article:other'],
      order: 0,
    });
    expect(second.json().body.blocks.map((block: { type: string }) => block.type)).toEqual([
      'quote',
      'paragraph',
    ]);
    expect(second.json().block).toMatchObject({
      type: 'quote',
      data: { text: 'zero', references: ['article:other'] },
    });
    const dangling = await post('/api/content/article/article:blocks/blocks', {
      blockType: 'quote',
      fields: {},
      references: ['article:gone'],
    });
    expect(dangling.statusCode).toBe(400);

    const blockId = first.json().block.id;
    const removed = await site.request({
      method: 'DELETE',
      url: `/api/content/article/article:blocks/blocks/${blockId}`,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json().body.blocks.map((block: { type: string }) => block.type)).toEqual(['quote']);
    const again = await site.request({
      method: 'DELETE',
      url: `/api/content/article/article:blocks/blocks/${blockId}`,
    });
    expect(again.statusCode).toBe(404);
    const item = (await get('/api/content/article/article:blocks')).json();
    expect(item.version).toBe(4);
    expect(item.body.blocks).toHaveLength(1);
  });

  it('publishes to prod by default, or to the env given, without a new version; writes record versions with hashes', async () => {
    await post('/api/content/article', { title: 'Launch' });
    const published = await post('/api/content/article/article:launch/publish', undefined);
    expect(published.statusCode, published.body).toBe(200);
    // Publishing puts the head live; it is not an edit, so no version is recorded (the ETag stays).
    expect(published.json()).toMatchObject({ status: 'published', publishedEnvs: ['prod'], version: 1 });
    expect(published.headers.etag).toBe('"1"');
    // An environment is never created on first use: staging must exist before publishing to it.
    const unknown = await post('/api/content/article/article:launch/publish?env=staging', undefined);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      code: 'unknown_environment',
      environments: ['env:dev', 'env:prod'],
    });
    expect(unknown.json().error).toContain('env:staging');
    expect((await get('/api/content/article/article:launch')).json()).toMatchObject({
      publishedEnvs: ['prod'],
      version: 1,
    });
    const environment = await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:staging',
      payload: { order: 2 },
    });
    expect(environment.statusCode, environment.body).toBe(200);
    const staging = await post('/api/content/article/article:launch/publish?env=staging', { env: 'ignored' });
    expect(staging.json().publishedEnvs).toEqual(['prod', 'staging']);
    const viaBody = await post('/api/content/article/article:launch/publish', { env: 'dev' });
    expect(viaBody.json().publishedEnvs).toEqual(['dev', 'prod', 'staging']);
    expect(
      (await post('/api/content/article/article:launch/publish?env=Bad Env', undefined)).statusCode,
    ).toBe(400);
    await patch('/api/content/article/article:launch', { words: 5 });

    const versions = await get('/api/content/article/article:launch/versions');
    expect(versions.statusCode).toBe(200);
    const list = versions.json();
    expect(
      list.map((version: { version: number; action: string }) => [version.version, version.action]),
    ).toEqual([
      [2, 'content.update'],
      [1, 'content.create'],
    ]);
    expect(list[0].hash).toBe(contentHash({ fields: list[0].fields, body: list[0].body }));
    expect(list[0].hash).not.toBe(list[1].hash);
    const one = await get('/api/content/article/article:launch/versions/1');
    expect(one.json()).toMatchObject({ id: 'article:launch@1', version: 1, status: 'draft' });
    // A stale expectedVersion is refused, like any write.
    const stale = await post('/api/content/article/article:launch/publish', { expectedVersion: 1 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().code).toBe('version_conflict');
    expect((await get('/api/content/article/article:launch/versions/9')).statusCode).toBe(404);
    expect((await get('/api/content/article/article:nope/versions')).statusCode).toBe(404);
  });

  it('appends one audit record per write', async () => {
    const before = (await site.graph.auditRecords()).length;
    await post('/api/content/article', { title: 'Audited' });
    await patch('/api/content/article/article:audited', { words: 1 });
    await post('/api/content/article/article:audited/publish', undefined);
    const records = (await site.graph.auditRecords()).slice(before);
    expect(records.map((record) => [record.action, record.target])).toEqual([
      ['content.create', 'article:audited'],
      ['content.update', 'article:audited'],
      ['content.publish', 'article:audited'],
    ]);
    expect((await site.graph.verifyAudit()).status).toBe('ok');
  });

  it('needs content:write to write and content:publish to publish', async () => {
    await post('/api/content/article', { title: 'Guarded' });
    const viewer = await site.platform.addUser({ name: 'viewer', siteId: site.siteId, role: 'viewer' });
    const publisher = await site.platform.addUser({ name: 'pub', siteId: site.siteId, role: 'publisher' });
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    expect(
      (await site.request({ method: 'GET', url: '/api/content/article', headers: as(viewer.key) }))
        .statusCode,
    ).toBe(200);
    expect((await post('/api/content/article', { title: 'No' }, as(viewer.key))).statusCode).toBe(403);
    expect(
      (await post('/api/content/article/article:guarded/publish', undefined, as(viewer.key))).statusCode,
    ).toBe(403);
    expect((await post('/api/content/article', { title: 'No' }, as(publisher.key))).statusCode).toBe(403);
    expect(
      (await post('/api/content/article/article:guarded/publish', undefined, as(publisher.key))).statusCode,
    ).toBe(200);
    expect((await post('/api/types', { name: 'x' }, as(publisher.key))).statusCode).toBe(403);
  });
});
