import { describe, expect, it } from 'vitest';
import type { ContentType } from '../schemas/content-type';
import { fieldValueFromCell, recordFromCsvRow } from './csv-record';
import { validateFields } from './validate-fields';

const book: Pick<ContentType, 'name' | 'fields' | 'relationships'> = {
  name: 'book',
  fields: [
    { name: 'isbn', type: 'string', required: true },
    { name: 'title', type: 'string', required: true },
    { name: 'year', type: 'number' },
    { name: 'inPrint', type: 'boolean' },
    { name: 'published', type: 'date' },
    { name: 'tags', type: 'stringlist' },
    { name: 'format', type: 'enum', values: ['hardcover', 'paperback'] },
  ],
  relationships: [
    { name: 'author', edgeLabel: 'WRITTEN_BY', target: 'author', kind: 'many-to-one' },
    { name: 'genres', edgeLabel: 'IN_GENRE', target: 'genre', kind: 'many-to-many' },
  ],
};

describe('recordFromCsvRow', () => {
  it('converts each cell by its field’s declared type, not by how it looks', () => {
    const record = recordFromCsvRow({
      type: book,
      cells: {
        isbn: '0451524934',
        title: '1984',
        year: '1949',
        inPrint: 'TRUE',
        published: '1949-06-08',
        tags: 'dystopia | classic',
        format: 'paperback',
      },
    });
    expect(record).toEqual({
      isbn: '0451524934',
      title: '1984',
      year: 1949,
      inPrint: true,
      published: '1949-06-08',
      tags: ['dystopia', 'classic'],
      format: 'paperback',
    });
    expect(validateFields({ type: book, fields: record, applyDefaults: true }).issues).toEqual([]);
    // A 13-digit ISBN and a number-looking title stay strings too.
    expect(recordFromCsvRow({ type: book, cells: { isbn: '9780451524935', title: '2001' } })).toEqual({
      isbn: '9780451524935',
      title: '2001',
    });
  });

  it('leaves empty cells out, takes the id, relationships and unknown columns as text', () => {
    expect(
      recordFromCsvRow({
        type: book,
        cells: {
          id: 'book:nineteen-eighty-four',
          isbn: '0451524934',
          year: '',
          author: 'author:orwell',
          'relationships.genres': 'genre:dystopia|genre:politics',
          pages: '328',
        },
      }),
    ).toEqual({
      id: 'book:nineteen-eighty-four',
      isbn: '0451524934',
      pages: '328',
      relationships: { author: 'author:orwell', genres: ['genre:dystopia', 'genre:politics'] },
    });
  });

  it('keeps a cell a number or boolean field cannot take as text, so validation names it', () => {
    const record = recordFromCsvRow({
      type: book,
      cells: { isbn: 'x', title: 't', year: '19 49', inPrint: 'maybe' },
    });
    expect(record).toMatchObject({ year: '19 49', inPrint: 'maybe' });
    expect(validateFields({ type: book, fields: record, applyDefaults: true }).issues).toEqual([
      { field: 'year', message: 'must be a finite number' },
      { field: 'inPrint', message: 'must be true or false' },
    ]);
  });
});

describe('fieldValueFromCell', () => {
  it('reads numbers, booleans and lists in their usual spellings', () => {
    expect(fieldValueFromCell({ type: 'number' }, '007')).toBe(7);
    expect(fieldValueFromCell({ type: 'number' }, '-1.5e3')).toBe(-1500);
    expect(fieldValueFromCell({ type: 'number' }, '0x10')).toBe('0x10');
    expect(fieldValueFromCell({ type: 'boolean' }, 'No')).toBe(false);
    expect(fieldValueFromCell({ type: 'boolean' }, '1')).toBe(true);
    expect(fieldValueFromCell({ type: 'stringlist' }, '["a|b", "c"]')).toEqual(['a|b', 'c']);
    expect(fieldValueFromCell({ type: 'text' }, ' 42 ')).toBe(' 42 ');
    expect(fieldValueFromCell({ type: 'enum' }, 'true')).toBe('true');
  });
});
