import { describe, expect, it } from 'vitest';
import { contentId, deriveSlug, parseContentId, slugify } from './content-id';

describe('content ids', () => {
  it('slugifies and derives slugs from id or keyField', () => {
    expect(slugify('  Crème Brûlée: the Movie! ')).toBe('creme-brulee-the-movie');
    const type = { name: 'movie', keyField: 'title' };
    expect(deriveSlug({ type, fields: { title: 'The Matrix' } })).toBe('the-matrix');
    expect(deriveSlug({ type, id: 'movie:matrix', fields: { title: 'x' } })).toBe('matrix');
    expect(deriveSlug({ type, id: 'matrix-1999', fields: {} })).toBe('matrix-1999');
    expect(deriveSlug({ type, fields: { title: 1999 } })).toBe('1999');
    expect(deriveSlug({ type, fields: { title: '!!!' } })).toBeNull();
    expect(contentId({ type: 'movie', slug: 'x' })).toBe('movie:x');
    expect(parseContentId('movie:x:y')).toEqual({ type: 'movie', slug: 'x:y' });
    expect(parseContentId('movie')).toBeNull();
  });
});
