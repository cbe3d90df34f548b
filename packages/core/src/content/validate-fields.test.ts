import { describe, expect, it } from 'vitest';
import type { ContentType, FieldDefinition } from '../schemas/content-type';
import { checkFieldValue, type ValueReference } from './field-value';
import { invalidFieldsError, validateFields, validateRelationships } from './validate-fields';

const check = (field: Omit<FieldDefinition, 'name'>, value: unknown) =>
  checkFieldValue({ name: 'f', ...field } as FieldDefinition, value);

describe('checkFieldValue', () => {
  it('checks each of the 12 field types', () => {
    const cases: Array<[FieldDefinition['type'], unknown, unknown]> = [
      ['string', 'x', 1],
      ['text', 'long text', false],
      ['markdown', '# hi', {}],
      ['richtext', { type: 'doc' }, 3],
      ['number', 1.5, '1.5'],
      ['boolean', false, 'false'],
      ['date', '2024-02-29', '2023-02-29'],
      ['datetime', '2026-01-31T09:30:00+01:00', '2026-01-31 09:30'],
      ['stringlist', ['a', 'b'], ['a', 2]],
      ['image', 'https://example.org/a.png', 'a.png'],
      ['reference', 'post:hello', 'hello'],
    ];
    for (const [type, good, bad] of cases) {
      expect(check({ type }, good), `${type} accepts ${JSON.stringify(good)}`).toBeNull();
      expect(check({ type }, bad), `${type} refuses ${JSON.stringify(bad)}`).toEqual(expect.any(String));
    }
    expect(check({ type: 'enum', values: ['draft', 'final'] }, 'final')).toBeNull();
    expect(check({ type: 'enum', values: ['draft', 'final'] }, 'other')).toBe('must be one of draft, final');
  });

  it('applies minLength, maxLength (characters; entries for stringlist) and regex', () => {
    expect(check({ type: 'string', minLength: 2 }, 'a')).toBe('must be at least 2 characters long (got 1)');
    expect(check({ type: 'string', maxLength: 3 }, 'abcd')).toBe('must be at most 3 characters long (got 4)');
    expect(check({ type: 'string', maxLength: 2 }, '✓✓')).toBeNull();
    expect(check({ type: 'string', regex: '^[a-z]{2}$' }, 'ab')).toBeNull();
    expect(check({ type: 'string', regex: '^[a-z]{2}$' }, 'abc')).toBe('must match the pattern ^[a-z]{2}$');
    expect(check({ type: 'stringlist', maxLength: 1 }, ['a', 'b'])).toBe(
      'must have at most 1 entries (got 2)',
    );
    expect(check({ type: 'stringlist', regex: '^#' }, ['#a', 'b'])).toBe(
      'entry "b" must match the pattern ^#',
    );
  });

  it('reports the references of reference and image fields, and checks a reference target type', () => {
    const references: ValueReference[] = [];
    const post = { name: 'p', type: 'reference', target: 'post' } as FieldDefinition;
    expect(checkFieldValue(post, 'post:a', references)).toBeNull();
    expect(checkFieldValue(post, 'page:a', references)).toBe('must be the id of a post item, post:<slug>');
    expect(checkFieldValue({ name: 'i', type: 'image' }, 'asset:abc', references)).toBeNull();
    expect(references).toEqual([
      { field: 'p', id: 'post:a', kind: 'content' },
      { field: 'i', id: 'asset:abc', kind: 'asset' },
    ]);
  });

  it('refuses impossible dates and times', () => {
    expect(check({ type: 'date' }, '2026-13-01')).not.toBeNull();
    expect(check({ type: 'datetime' }, '2026-01-31T24:00:00Z')).not.toBeNull();
    expect(check({ type: 'datetime' }, '2026-01-31T23:59:59.123Z')).toBeNull();
  });
});

const post: ContentType = {
  name: 'post',
  label: 'Post',
  nodeLabel: 'Post',
  keyField: 'title',
  fields: [
    { name: 'title', type: 'string', required: true },
    { name: 'state', type: 'enum', values: ['a', 'b'], default: 'a' },
    { name: 'views', type: 'number' },
  ],
  relationships: [
    { name: 'author', edgeLabel: 'WRITTEN_BY', target: 'person', kind: 'many-to-one', required: true },
    { name: 'tags', edgeLabel: 'TAGGED', target: 'tag' },
  ],
};

describe('validateFields', () => {
  it('applies defaults on create, drops nulls and names each bad field', () => {
    const ok = validateFields({ type: post, fields: { title: 'Hi', views: null }, applyDefaults: true });
    expect(ok).toEqual({ fields: { title: 'Hi', state: 'a' }, issues: [], references: [] });
    const bad = validateFields({ type: post, fields: { views: 'x', extra: 1 }, applyDefaults: false });
    expect(bad.issues).toEqual([
      { field: 'title', message: 'is required' },
      { field: 'views', message: 'must be a finite number' },
      { field: 'extra', message: 'is not a field of type post' },
    ]);
  });

  it('renders issues as a 400 naming the fields', () => {
    const error = invalidFieldsError([{ field: 'title', message: 'is required' }]);
    expect(error.status).toBe(400);
    expect(error.message).toContain('field `title` is required');
    expect(error.toBody().issues).toEqual([{ field: 'title', message: 'is required' }]);
  });
});

describe('validateRelationships', () => {
  it('takes single ids or arrays, checks target types, kinds and required', () => {
    const ok = validateRelationships({
      type: post,
      relationships: { author: 'person:ann', tags: ['tag:a', 'tag:a', 'tag:b'] },
      isCreate: true,
    });
    expect(ok).toEqual({ targets: { author: ['person:ann'], tags: ['tag:a', 'tag:b'] }, issues: [] });
    const bad = validateRelationships({
      type: post,
      relationships: { author: ['person:a', 'person:b'], tags: 'post:x', nope: 'x:y' },
      isCreate: true,
    });
    expect(bad.issues.map((issue) => issue.field)).toEqual(['author', 'tags', 'nope', 'author']);
    const missing = validateRelationships({ type: post, relationships: {}, isCreate: true });
    expect(missing.issues).toEqual([{ field: 'author', message: 'is required' }]);
    expect(validateRelationships({ type: post, relationships: {}, isCreate: false }).issues).toEqual([]);
  });
});
