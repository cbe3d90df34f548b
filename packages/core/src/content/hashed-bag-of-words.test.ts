import { describe, expect, it } from 'vitest';
import { embeddingText, hashedBagOfWords } from './hashed-bag-of-words';

describe('hashedBagOfWords', () => {
  const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  const cosine = (a: number[], b: number[]) =>
    a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);

  it('is deterministic, 256-dimensional and L2-normalised', () => {
    const vector = hashedBagOfWords('The quick brown fox');
    expect(vector).toHaveLength(256);
    expect(norm(vector)).toBeCloseTo(1, 10);
    expect(hashedBagOfWords('the QUICK brown fox!')).toEqual(vector);
    expect(hashedBagOfWords('', { dimensions: 8 })).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('ranks texts that share words as more similar', () => {
    const query = hashedBagOfWords('volcanic islands in the pacific ocean');
    const near = hashedBagOfWords('a chain of volcanic islands in the south pacific');
    const far = hashedBagOfWords('landlocked steppe with cold winters');
    expect(cosine(query, near)).toBeGreaterThan(cosine(query, far));
  });

  it('embeds the text-like fields of an item', () => {
    const type = {
      fields: [
        { name: 'title', type: 'string' as const },
        { name: 'year', type: 'number' as const },
        { name: 'tags', type: 'stringlist' as const },
      ],
    };
    expect(embeddingText({ type, fields: { title: 'Up', year: 2009, tags: ['a', 'b'] } })).toBe('Up\na b');
  });
});
