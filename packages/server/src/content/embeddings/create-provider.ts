import type { Config } from '../../config';
import type { GuardedFetch } from '../../shared/outbound/guarded-fetch';
import { createHashedBowProvider } from './hashed-bow-provider';
import { createOpenAiCompatibleProvider } from './openai-compatible-provider';
import type { EmbeddingProvider } from './provider';

/**
 * The provider the configuration names: OpenAI-compatible when EMBEDDINGS_URL is set (called
 * through `fetch`, the server's guarded fetcher), else `hashed-bow`.
 */
export function createEmbeddingProvider(
  config: Pick<Config, 'EMBEDDINGS_URL' | 'EMBEDDINGS_MODEL' | 'EMBEDDINGS_API_KEY'>,
  fetch: GuardedFetch,
): EmbeddingProvider {
  if (config.EMBEDDINGS_URL) {
    return createOpenAiCompatibleProvider({
      url: config.EMBEDDINGS_URL,
      model: config.EMBEDDINGS_MODEL,
      apiKey: config.EMBEDDINGS_API_KEY,
      fetch,
    });
  }
  return createHashedBowProvider();
}
