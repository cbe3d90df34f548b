import { describe, expect, it } from 'vitest';
import { AiAltTextBody, AiSummarizeBody, AiTranslateBody } from './ai';
import { StockImportBody, StockQuery } from './media';

describe('AI request bodies', () => {
  it('take exactly one of itemId and text', () => {
    expect(AiSummarizeBody.safeParse({ itemId: 'post:a' }).success).toBe(true);
    expect(AiSummarizeBody.safeParse({ text: 'x' }).success).toBe(true);
    expect(AiSummarizeBody.safeParse({}).success).toBe(false);
    expect(AiSummarizeBody.safeParse({ itemId: 'post:a', text: 'x' }).success).toBe(false);
    expect(AiSummarizeBody.safeParse({ itemId: 'not an id' }).success).toBe(false);
  });

  it('alt text needs an image or a description, not both an asset and a URL', () => {
    expect(AiAltTextBody.safeParse({ description: 'a kite' }).success).toBe(true);
    expect(AiAltTextBody.safeParse({ imageUrl: 'https://example.org/a.jpg' }).success).toBe(true);
    expect(AiAltTextBody.safeParse({}).success).toBe(false);
    expect(AiAltTextBody.safeParse({ imageUrl: 'file:///etc/passwd' }).success).toBe(false);
    expect(
      AiAltTextBody.safeParse({ assetId: 'asset:abc', imageUrl: 'https://example.org/a.jpg' }).success,
    ).toBe(false);
  });

  it('translate names an item and a locale code', () => {
    expect(AiTranslateBody.safeParse({ itemId: 'post:a', locale: 'pt-BR' }).success).toBe(true);
    expect(AiTranslateBody.safeParse({ itemId: 'post:a', locale: 'Deutsch' }).success).toBe(false);
  });
});

describe('stock bodies', () => {
  it('page a search and import by a provider id', () => {
    expect(StockQuery.parse({ provider: 'pixabay', q: 'x', page: '2', perPage: '10' })).toMatchObject({
      page: 2,
      perPage: 10,
    });
    expect(StockQuery.safeParse({ provider: 'pexels', q: 'x', perPage: '81' }).success).toBe(false);
    expect(StockImportBody.safeParse({ provider: 'unsplash', id: 'eOLpJytrbsQ' }).success).toBe(true);
    expect(StockImportBody.safeParse({ provider: 'unsplash', id: '../etc' }).success).toBe(false);
  });
});
