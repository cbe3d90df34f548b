import { describe, expect, it } from 'vitest';
import { searchText } from './search-text';

describe('searchText', () => {
  const type = {
    fields: [
      { name: 'title', type: 'string' as const },
      { name: 'summary', type: 'text' as const },
      { name: 'body', type: 'markdown' as const },
      { name: 'html', type: 'richtext' as const },
      { name: 'tags', type: 'stringlist' as const },
      { name: 'year', type: 'number' as const },
      { name: 'genre', type: 'enum' as const, values: ['drama'] },
      { name: 'author', type: 'reference' as const, target: 'person' },
      { name: 'cover', type: 'image' as const },
      { name: 'released', type: 'date' as const },
    ],
  };

  it('holds the text fields only, in field order', () => {
    expect(
      searchText({
        type,
        fields: {
          tags: ['noir', 'classic'],
          title: 'The Third Man',
          summary: 'Vienna, 1948',
          body: '# Review',
          html: '<p>Zither</p>',
          year: 1949,
          genre: 'drama',
          author: 'person:graham-greene',
          cover: 'asset:0123456789abcdef01234567',
          released: '1949-09-01',
          status: 'draft',
          createdBy: 'user:alice',
        },
      }).split('\n'),
    ).toEqual(['The Third Man', 'Vienna, 1948', '# Review', '<p>Zither</p>', 'noir', 'classic']);
  });

  it('is empty without text and takes strings nested in a value', () => {
    expect(searchText({ type, fields: { year: 2000 } })).toBe('');
    expect(searchText({ type, fields: { html: { blocks: [{ text: 'Nested' }] } } })).toBe('Nested');
  });
});
