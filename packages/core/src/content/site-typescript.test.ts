import { describe, expect, it } from 'vitest';
import { FieldType } from '../schemas/content-type';
import { fieldTsType, siteTypesDeclaration, typeIdentifier } from './site-typescript';

describe('site TypeScript', () => {
  it('gives every field type of docs/content-types.md a TypeScript type', () => {
    const types = Object.fromEntries(
      FieldType.options.map((type) => [type, fieldTsType({ type, values: ['a', "b'c"], target: 'author' })]),
    );
    expect(types).toEqual({
      string: 'string',
      text: 'string',
      markdown: 'string',
      richtext: 'string | RichTextDocument',
      number: 'number',
      boolean: 'boolean',
      date: 'IsoDate',
      datetime: 'IsoDateTime',
      enum: `"a" | "b'c"`,
      stringlist: 'string[]',
      image: 'ImageRef',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript template literal type
      reference: '`author:${string}`',
    });
  });

  it('names types in PascalCase, distinctly, and quotes keys that are not identifiers', () => {
    expect(typeIdentifier('release-note')).toBe('ReleaseNote');
    expect(typeIdentifier('3d-model')).toBe('T3dModel');
    const text = siteTypesDeclaration({
      siteId: 'site:x',
      siteName: 'X',
      types: [
        { name: 'release-note', label: 'A', fields: [{ name: 'slug', type: 'string', required: true }] },
        { name: 'release_note', label: 'B', fields: [{ name: 'slug', type: 'string', required: true }] },
      ],
    });
    expect(text).toContain('"release-note": { fields: ReleaseNoteFields;');
    expect(text).toContain('release_note: { fields: ReleaseNote2Fields;');
    expect(text).toContain('export type ReleaseNoteRelationships = Record<string, never>;');
  });
});
