import { describe, expect, it } from 'vitest';
import { isTrellisError } from '../errors';
import type { ContentType } from '../schemas/content-type';
import { parseWhere } from './list-language';
import { typeListQuery } from './type-list-query';

const book: Pick<ContentType, 'name' | 'fields'> = {
  name: 'book',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'isbn', type: 'string' },
    { name: 'year', type: 'number' },
    { name: 'inPrint', type: 'boolean' },
    { name: 'state', type: 'enum', values: ['idea', 'final'] },
    { name: 'tags', type: 'stringlist' },
    { name: 'slug', type: 'string' },
  ],
};

function problems(where: string, sort: string[] = []): string {
  try {
    typeListQuery({ type: book, where: parseWhere(where), sort });
  } catch (error) {
    if (isTrellisError(error) && error.code === 'invalid_list_query') return error.message;
    throw error;
  }
  throw new Error(`expected ${where} to be refused`);
}

describe('typeListQuery', () => {
  it('types values by their field and resolves names (a field wins over a built-in)', () => {
    const { where, sort } = typeListQuery({
      type: book,
      where: parseWhere(
        "year == '2020' and isbn == 1984 and isbn != 0451524934 and inPrint == 'true' and tags contains 7 and status == published and slug != null",
      ),
      sort: ['-year', 'updatedAt', 'slug'],
    });
    expect(where.map(({ field, op, value }) => [field, op, value])).toEqual([
      ['year', '==', 2020],
      ['isbn', '==', '1984'],
      ['isbn', '!=', '0451524934'],
      ['inPrint', '==', true],
      ['tags', 'contains', '7'],
      ['status', '==', 'published'],
      ['slug', '!=', null],
    ]);
    expect(where[5]!.target).toEqual({ kind: 'built-in', name: 'status' });
    expect(where[6]!.target.kind).toBe('field');
    expect(sort.map((key) => [key.field, key.descending, key.target.kind])).toEqual([
      ['year', true, 'field'],
      ['updatedAt', false, 'built-in'],
      ['slug', false, 'field'],
    ]);
  });

  it('names every problem at once, and the known names when one is unknown', () => {
    const message = problems("colour == 'red' and year > 'soon'", ['-rank']);
    expect(message).toContain('`colour` is not a field of book');
    expect(message).toContain('`year > "soon"` needs a number');
    expect(message).toContain('`rank` is not a field of book');
    expect(message).toContain('fields of book: title, isbn, year, inPrint, state, tags, slug');
    expect(message).toContain('built-ins: id, slug, type, status, createdAt, updatedAt');
  });

  it('refuses operators that do not suit the field', () => {
    expect(problems("tags == 'x'")).toContain('is a list: use contains');
    expect(problems('year contains 2')).toContain('cannot use contains on a number');
    expect(problems('inPrint > 0')).toContain('cannot use > on true/false');
    expect(problems('year > null')).toContain('needs a value, not null');
    expect(problems("state == 'draft'")).toContain('needs one of idea, final');
    expect(problems("status == 'archived'")).toContain('needs one of draft, published');
    expect(problems('', ['tags'])).toContain('`tags` is a list and cannot be a sort key');
  });
});
