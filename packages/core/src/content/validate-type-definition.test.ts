import { describe, expect, it } from 'vitest';
import type { ContentType } from '../schemas/content-type';
import { findTypeChangeConflicts } from './type-change-conflicts';
import { validateTypeDefinition } from './validate-type-definition';

const base: ContentType = {
  name: 'movie',
  label: 'Movie',
  nodeLabel: 'Movie',
  keyField: 'title',
  fields: [{ name: 'title', type: 'string', required: true }],
};

const issuesOf = (input: Partial<ContentType>, typeNames: string[] = []) =>
  validateTypeDefinition({ input: { ...base, ...input }, typeNames: new Set(typeNames) }).issues;

describe('validateTypeDefinition', () => {
  it('normalises a valid definition', () => {
    const { definition, issues } = validateTypeDefinition({ input: base, typeNames: new Set() });
    expect(issues).toEqual([]);
    expect(definition).toMatchObject({ relationships: [], routePattern: null, emitPages: true });
  });

  it('reads listingOnly as emitPages false, and lets emitPages win', () => {
    const resolve = (input: Partial<ContentType>) =>
      validateTypeDefinition({ input: { ...base, ...input }, typeNames: new Set() }).definition.emitPages;
    expect(resolve({ listingOnly: true })).toBe(false);
    expect(resolve({ listingOnly: true, emitPages: true })).toBe(true);
    expect(resolve({ emitPages: false })).toBe(false);
  });

  it('refuses a keyField that names no field, and reserved names', () => {
    expect(issuesOf({ keyField: 'name' })).toEqual([
      { field: 'keyField', message: '`name` names no field of the type' },
    ]);
    expect(issuesOf({ nodeLabel: 'ItemVersion' })[0]?.field).toBe('nodeLabel');
    expect(issuesOf({ name: 'release' })[0]?.field).toBe('name');
    for (const name of ['env', 'Deploy', 'site']) expect(issuesOf({ name })[0]?.field).toBe('name');
    expect(issuesOf({ nodeLabel: 'MediaAsset' })[0]?.field).toBe('nodeLabel');
  });

  it('takes the names of internal nodes, which no longer share the item id space', () => {
    for (const name of [
      'review',
      'user',
      'media',
      'asset',
      'build',
      'query',
      'view',
      'route',
      'locale',
      'widget',
      'type',
      'template',
    ]) {
      expect(issuesOf({ name }), name).toEqual([]);
    }
    expect(issuesOf({ fields: [...base.fields, { name: 'status', type: 'string' }] })[0]?.message).toContain(
      'reserved',
    );
  });

  it('refuses regexes that do not compile or could backtrack catastrophically', () => {
    const withRegex = (regex: string) => issuesOf({ fields: [{ name: 'title', type: 'string', regex }] });
    expect(withRegex('^[a-z]+$')).toEqual([]);
    expect(withRegex('(a+)+$')[0]?.message).toContain('backtrack');
    expect(withRegex('([a-z]*)*x')[0]?.message).toContain('backtrack');
    expect(withRegex('[a-')[0]?.message).toBe('`regex` does not compile');
  });

  it('checks rules against field types, enum values and defaults', () => {
    expect(
      issuesOf({ fields: [...base.fields, { name: 'n', type: 'number', maxLength: 3 }] })[0]?.message,
    ).toBe('`maxLength` applies to text and stringlist fields only');
    expect(issuesOf({ fields: [...base.fields, { name: 'e', type: 'enum' }] })[0]?.message).toContain(
      'values',
    );
    expect(
      issuesOf({ fields: [...base.fields, { name: 'n', type: 'number', default: 'x' }] })[0]?.message,
    ).toBe('`default` must be a finite number');
  });

  it('checks relationship targets and edge labels, and reference targets', () => {
    const relationship = { name: 'cast', edgeLabel: 'ACTED_IN', target: 'person' };
    expect(issuesOf({ relationships: [relationship] }, ['person'])).toEqual([]);
    expect(issuesOf({ relationships: [{ ...relationship, target: 'movie' }] })).toEqual([]);
    expect(issuesOf({ relationships: [relationship] })[0]?.message).toBe(
      '`target` person is not a content type of this site',
    );
    expect(
      issuesOf({ relationships: [{ ...relationship, edgeLabel: 'actedIn' }] }, ['person'])[0]?.message,
    ).toContain('uppercase');
    expect(
      issuesOf({ fields: [...base.fields, { name: 'r', type: 'reference', target: 'nope' }] })[0]?.message,
    ).toContain('nope');
  });

  it('checks route pattern placeholders against the fields', () => {
    expect(issuesOf({ routePattern: '/films/{title}/{slug}/' })).toEqual([]);
    expect(issuesOf({ routePattern: '/films/{parent.slug}/{slug}/' })).toEqual([]);
    expect(issuesOf({ routePattern: '/films/{year}/' })[0]?.field).toBe('routePattern');
  });
});

describe('findTypeChangeConflicts', () => {
  it('counts the stored items a changed definition would make invalid, per field', () => {
    const items = [
      { id: 'movie:a', fields: { title: 'A', code: 'x' } },
      { id: 'movie:b', fields: { title: 'B', code: 'x' } },
      { id: 'movie:c', fields: { title: 'C' } },
    ];
    const next = {
      name: 'movie',
      fields: [
        { name: 'title', type: 'string' as const, maxLength: 1 },
        { name: 'code', type: 'string' as const, unique: true },
        { name: 'rating', type: 'number' as const, required: true },
      ],
    };
    expect(findTypeChangeConflicts({ type: next, items })).toEqual([
      { field: 'rating', count: 3, exampleId: 'movie:a', message: 'is required' },
      {
        field: 'code',
        count: 1,
        exampleId: 'movie:b',
        message: 'must be unique, but another item has the same value',
      },
    ]);
    expect(
      findTypeChangeConflicts({ type: { name: 'movie', fields: next.fields.slice(0, 1) }, items }),
    ).toEqual([{ field: 'code', count: 2, exampleId: 'movie:a', message: 'is not a field of type movie' }]);
  });
});
