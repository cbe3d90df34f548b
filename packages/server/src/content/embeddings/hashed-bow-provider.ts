import { HASHED_BOW_DIMENSIONS, hashedBagOfWords } from '@trelliscms/core';
import type { EmbeddingProvider } from './provider';

/**
 * The default provider: a hashed bag-of-words vector (core's `hashedBagOfWords`), computed
 * in-process. Works offline on any machine; similarity means shared words, not meaning.
 */
export function createHashedBowProvider({ dimensions = HASHED_BOW_DIMENSIONS } = {}): EmbeddingProvider {
  return {
    name: 'hashed-bow',
    async embed(texts) {
      return texts.map((text) => hashedBagOfWords(text, { dimensions }));
    },
  };
}
