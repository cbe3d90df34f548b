import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { typeNodeId } from '../type-repository';

let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
});
afterEach(async () => {
  await site.close();
});

const person = {
  name: 'person',
  label: 'Person',
  nodeLabel: 'Person',
  keyField: 'name',
  fields: [{ name: 'name', type: 'string', required: true }],
};

const movie = {
  name: 'movie',
  label: 'Movie',
  nodeLabel: 'Movie',
  keyField: 'title',
  routePattern: '/films/{year}/{slug}/',
  icon: 'film',
  fields: [
    { name: 'title', type: 'string', required: true, maxLength: 200 },
    { name: 'year', type: 'number' },
    { name: 'rating', type: 'enum', values: ['G', 'PG', 'R'], default: 'PG' },
  ],
  relationships: [{ name: 'cast', edgeLabel: 'ACTED_IN', target: 'person', kind: 'many-to-many' }],
};

describe('content types', () => {
  it('creates a type (201, full shape), reads it in full and lists summaries', async () => {
    await site.createType(person);
    const created = await site.request({ method: 'POST', url: '/api/types', payload: movie });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ ...movie, emitPages: true });

    const full = await site.request({ method: 'GET', url: '/api/types/movie' });
    expect(full.statusCode).toBe(200);
    expect(full.json().fields[2]).toEqual({
      name: 'rating',
      type: 'enum',
      values: ['G', 'PG', 'R'],
      default: 'PG',
    });

    const list = await site.request({ method: 'GET', url: '/api/types' });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([
      {
        name: 'movie',
        label: 'Movie',
        nodeLabel: 'Movie',
        fieldCount: 3,
        relationshipCount: 1,
        allowedChildren: [],
        icon: 'film',
        emitPages: true,
        routePattern: '/films/{year}/{slug}/',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'year', type: 'number' },
          { name: 'rating', type: 'enum' },
        ],
      },
      {
        name: 'person',
        label: 'Person',
        nodeLabel: 'Person',
        fieldCount: 1,
        relationshipCount: 0,
        allowedChildren: [],
        emitPages: true,
        routePattern: null,
        fields: [{ name: 'name', type: 'string' }],
      },
    ]);
  });

  it('reads legacy rows without emitPages as true, and listingOnly as emitPages false', async () => {
    await site.graph.putNode({
      id: typeNodeId('legacy'),
      labels: ['ContentType'],
      props: { ...person, name: 'legacy', nodeLabel: 'Legacy' },
    });
    await site.createType({ ...person, name: 'tag', nodeLabel: 'Tag', listingOnly: true });
    await site.createType({ ...person, name: 'note', nodeLabel: 'Note', listingOnly: true, emitPages: true });
    const list = (await site.request({ method: 'GET', url: '/api/types' })).json() as Array<{
      name: string;
      emitPages: boolean;
    }>;
    expect(Object.fromEntries(list.map((type) => [type.name, type.emitPages]))).toEqual({
      legacy: true,
      note: true,
      tag: false,
    });
  });

  it('refuses invalid definitions with 400 naming the problem', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...person, keyField: 'title' }, 'keyField'],
      [{ ...person, fields: [{ name: 'name', type: 'colour' }] }, 'type'],
      [{ ...person, fields: [{ name: 'name', type: 'enum' }] }, 'values'],
      [{ ...person, fields: [{ name: 'name', type: 'string', regex: '(a+)+$' }] }, 'backtrack'],
      [{ ...person, fields: [{ name: 'name', type: 'string', regex: '[a-' }] }, 'regex'],
      [{ ...person, relationships: [{ name: 'knows', edgeLabel: 'knows', target: 'person' }] }, 'edgeLabel'],
      [{ ...person, relationships: [{ name: 'likes', edgeLabel: 'LIKES', target: 'movie' }] }, 'movie'],
      [{ ...person, name: 'release', nodeLabel: 'Release' }, 'reserved'],
    ];
    for (const [definition, needle] of cases) {
      const response = await site.request({ method: 'POST', url: '/api/types', payload: definition });
      expect(response.statusCode, JSON.stringify(definition)).toBe(400);
      expect(response.json().code).toBe('validation_failed');
      expect(response.json().error).toContain(needle);
    }
    expect((await site.request({ method: 'GET', url: '/api/types' })).json()).toEqual([]);
  });

  it('answers 409 for a taken name or node label, and 404 for an unknown type', async () => {
    await site.createType(person);
    const again = await site.request({ method: 'POST', url: '/api/types', payload: person });
    expect(again.statusCode).toBe(409);
    const sameLabel = await site.request({
      method: 'POST',
      url: '/api/types',
      payload: { ...person, name: 'human' },
    });
    expect(sameLabel.statusCode).toBe(400);
    expect(sameLabel.json().error).toContain('nodeLabel');
    expect((await site.request({ method: 'GET', url: '/api/types/nope' })).statusCode).toBe(404);
    const patchMissing = await site.request({
      method: 'PATCH',
      url: '/api/types/nope',
      payload: { label: 'x' },
    });
    expect(patchMissing.statusCode).toBe(404);
  });

  it('PATCHes partially, and refuses a change that would make stored items invalid (409 naming field and count)', async () => {
    await site.createType(person);
    for (const name of ['Ann', 'Bobby']) {
      const created = await site.request({ method: 'POST', url: '/api/content/person', payload: { name } });
      expect(created.statusCode, created.body).toBe(201);
    }
    const relabel = await site.request({
      method: 'PATCH',
      url: '/api/types/person',
      payload: { label: 'People', icon: 'user' },
    });
    expect(relabel.statusCode, relabel.body).toBe(200);
    expect(relabel.json()).toMatchObject({ label: 'People', icon: 'user', fields: person.fields });

    const required = await site.request({
      method: 'PATCH',
      url: '/api/types/person',
      payload: { fields: [...person.fields, { name: 'email', type: 'string', required: true }] },
    });
    expect(required.statusCode).toBe(409);
    expect(required.json()).toMatchObject({ code: 'type_change_conflict', field: 'email', count: 2 });
    expect(required.json().error).toContain('2 stored item(s)');

    const narrower = await site.request({
      method: 'PATCH',
      url: '/api/types/person',
      payload: { fields: [{ name: 'name', type: 'string', required: true, maxLength: 3 }] },
    });
    expect(narrower.statusCode).toBe(409);
    expect(narrower.json()).toMatchObject({ field: 'name', count: 1, exampleId: 'person:bobby' });

    const optional = await site.request({
      method: 'PATCH',
      url: '/api/types/person',
      payload: { fields: [...person.fields, { name: 'email', type: 'string' }] },
    });
    expect(optional.statusCode, optional.body).toBe(200);
    expect((await site.request({ method: 'GET', url: '/api/types/person' })).json().fields).toHaveLength(2);
  });
});
