import { describe, expect, it } from 'vitest';
import { EdgeLabel } from './common';
import {
  ContentType,
  ContentTypeSummary,
  effectiveEmitPages,
  FieldDefinition,
  FieldType,
  RelationshipDefinition,
  RoutePattern,
  summarizeContentType,
  UpdateContentTypeBody,
} from './content-type';

const movie = {
  name: 'movie',
  label: 'Movie',
  nodeLabel: 'Movie',
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: true, regex: '^[a-z0-9-]+$' },
    { name: 'title', type: 'string', required: true, minLength: 1, maxLength: 200 },
    { name: 'rating', type: 'enum', values: ['G', 'PG', 'R'], default: 'PG' },
    { name: 'released', type: 'number' },
  ],
  relationships: [
    { name: 'actors', edgeLabel: 'ACTED_IN', target: 'person', kind: 'many-to-many', required: false },
  ],
  routePattern: '/films/{released}/{slug}/',
  emitPages: true,
};

describe('FieldDefinition', () => {
  it('has the 12 field types of docs/api-spec.md §2', () => {
    expect(FieldType.options).toHaveLength(12);
    for (const type of FieldType.options) {
      const field = type === 'enum' ? { name: 'f', type, values: ['a'] } : { name: 'f', type };
      expect(FieldDefinition.safeParse(field).success, type).toBe(true);
    }
    expect(FieldDefinition.safeParse({ name: 'f', type: 'json' }).success).toBe(false);
  });

  it('rejects an enum without values', () => {
    expect(FieldDefinition.safeParse({ name: 'f', type: 'enum' }).success).toBe(false);
    expect(FieldDefinition.safeParse({ name: 'f', type: 'enum', values: [] }).success).toBe(false);
    expect(FieldDefinition.safeParse({ name: 'f', type: 'enum', values: ['a', 'a'] }).success).toBe(false);
    expect(FieldDefinition.safeParse({ name: 'f', type: 'enum', values: ['a'], default: 'b' }).success).toBe(
      false,
    );
  });

  it('rejects minLength above maxLength, negative lengths and a regex that does not compile', () => {
    expect(FieldDefinition.safeParse({ name: 'f', type: 'string', minLength: 5, maxLength: 2 }).success).toBe(
      false,
    );
    expect(FieldDefinition.safeParse({ name: 'f', type: 'string', minLength: -1 }).success).toBe(false);
    expect(FieldDefinition.safeParse({ name: 'f', type: 'string', maxLength: 1.5 }).success).toBe(false);
    expect(FieldDefinition.safeParse({ name: 'f', type: 'string', regex: '([a-z' }).success).toBe(false);
  });

  it('takes a default of any type', () => {
    expect(FieldDefinition.safeParse({ name: 'n', type: 'number', default: 3 }).success).toBe(true);
    expect(FieldDefinition.safeParse({ name: 'l', type: 'stringlist', default: ['a'] }).success).toBe(true);
  });

  it('rejects a field name that is not an identifier', () => {
    expect(FieldDefinition.safeParse({ name: 'my field', type: 'string' }).success).toBe(false);
    expect(FieldDefinition.safeParse({ name: '', type: 'string' }).success).toBe(false);
  });
});

describe('RelationshipDefinition', () => {
  it('needs an uppercase identifier as edgeLabel', () => {
    const rel = { name: 'actors', edgeLabel: 'ACTED_IN', target: 'person' };
    expect(RelationshipDefinition.safeParse(rel).success).toBe(true);
    for (const edgeLabel of ['acted_in', 'ActedIn', 'ACTED IN', '1ACTED', 'ACTED-IN', '']) {
      expect(RelationshipDefinition.safeParse({ ...rel, edgeLabel }).success, edgeLabel).toBe(false);
    }
    expect(EdgeLabel.safeParse('A'.repeat(65)).success).toBe(false);
  });

  it('takes only the four kinds', () => {
    const rel = { name: 'r', edgeLabel: 'R', target: 't' };
    for (const kind of ['one-to-one', 'one-to-many', 'many-to-one', 'many-to-many']) {
      expect(RelationshipDefinition.safeParse({ ...rel, kind }).success, kind).toBe(true);
    }
    expect(RelationshipDefinition.safeParse({ ...rel, kind: 'many' }).success).toBe(false);
  });
});

describe('ContentType', () => {
  it('accepts the full spec shape', () => {
    expect(ContentType.parse(movie)).toEqual(movie);
  });

  it('needs name, label, nodeLabel, keyField and fields; relationships are optional', () => {
    for (const key of ['name', 'label', 'nodeLabel', 'keyField', 'fields']) {
      const { [key]: _omitted, ...rest } = movie as Record<string, unknown>;
      expect(ContentType.safeParse(rest).success, key).toBe(false);
    }
    const { relationships: _relationships, ...withoutRelationships } = movie;
    expect(ContentType.safeParse(withoutRelationships).success).toBe(true);
  });

  it('rejects a type name that cannot be a path segment', () => {
    expect(ContentType.safeParse({ ...movie, name: 'my/type' }).success).toBe(false);
    expect(ContentType.safeParse({ ...movie, name: 'movie:x' }).success).toBe(false);
  });

  it('rejects duplicate field or relationship names', () => {
    const fields = [...movie.fields, { name: 'title', type: 'text' }];
    expect(ContentType.safeParse({ ...movie, fields }).success).toBe(false);
    const relationships = [{ name: 'title', edgeLabel: 'HAS', target: 'x' }];
    expect(ContentType.safeParse({ ...movie, relationships }).success).toBe(false);
  });

  it('takes route patterns with the spec placeholders only', () => {
    for (const pattern of [
      '/{slug}/',
      '/films/{released}/{slug}/',
      '/{parent.slug}/{slug}',
      '/{parent.title}/x',
    ]) {
      expect(RoutePattern.safeParse(pattern).success, pattern).toBe(true);
    }
    for (const pattern of ['films/{slug}', '/{slug', '/{par ent}/', '/{a.b.c}/', '/x?y={slug}', '/{}/']) {
      expect(RoutePattern.safeParse(pattern).success, pattern).toBe(false);
    }
    expect(ContentType.safeParse({ ...movie, routePattern: null }).success).toBe(true);
  });

  it('takes a partial type as PATCH body', () => {
    expect(UpdateContentTypeBody.safeParse({ label: 'Film' }).success).toBe(true);
    expect(UpdateContentTypeBody.safeParse({ fields: [{ name: 'f', type: 'enum' }] }).success).toBe(false);
  });
});

describe('emitPages and listingOnly', () => {
  it('reads legacy rows without either as true, listingOnly as emitPages false, and lets emitPages win', () => {
    expect(effectiveEmitPages({})).toBe(true);
    expect(effectiveEmitPages({ listingOnly: true })).toBe(false);
    expect(effectiveEmitPages({ listingOnly: false })).toBe(true);
    expect(effectiveEmitPages({ emitPages: true, listingOnly: true })).toBe(true);
    expect(effectiveEmitPages({ emitPages: false, listingOnly: false })).toBe(false);
  });
});

describe('ContentTypeSummary', () => {
  it('is what summarizeContentType gives, with fields reduced to {name, type}', () => {
    const summary = summarizeContentType(
      ContentType.parse({ ...movie, emitPages: undefined, listingOnly: true }),
    );
    expect(ContentTypeSummary.parse(summary)).toEqual({
      name: 'movie',
      label: 'Movie',
      nodeLabel: 'Movie',
      fieldCount: 4,
      relationshipCount: 1,
      allowedChildren: [],
      emitPages: false,
      routePattern: '/films/{released}/{slug}/',
      fields: [
        { name: 'slug', type: 'string' },
        { name: 'title', type: 'string' },
        { name: 'rating', type: 'enum' },
        { name: 'released', type: 'number' },
      ],
    });
  });

  it('requires every listed field except icon', () => {
    const summary = summarizeContentType(ContentType.parse(movie));
    expect(ContentTypeSummary.safeParse({ ...summary, icon: 'film' }).success).toBe(true);
    for (const key of Object.keys(summary)) {
      const { [key]: _omitted, ...rest } = summary as Record<string, unknown>;
      expect(ContentTypeSummary.safeParse(rest).success, key).toBe(false);
    }
  });
});
