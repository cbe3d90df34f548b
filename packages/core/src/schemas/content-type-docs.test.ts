import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContentType, FieldDefinition, FieldType, RelationshipDefinition } from './content-type';

const doc = readFileSync(join(import.meta.dirname, '../../../../docs/content-types.md'), 'utf8');
const keysOf = (schema: { shape?: Record<string, unknown>; def?: unknown }) =>
  Object.keys((schema as { shape: Record<string, unknown> }).shape);

describe('docs/content-types.md', () => {
  it('documents every field type', () => {
    expect(FieldType.options.filter((type) => !doc.includes(`| \`${type}\` |`))).toEqual([]);
  });

  it('documents every key of a type, a field and a relationship', () => {
    for (const schema of [ContentType, FieldDefinition, RelationshipDefinition]) {
      const keys = keysOf(schema as never);
      expect(keys.length).toBeGreaterThan(3);
      expect(keys.filter((key) => !doc.includes(`\`${key}\``))).toEqual([]);
    }
  });
});
