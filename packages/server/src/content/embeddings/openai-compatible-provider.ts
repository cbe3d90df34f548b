import type { GuardedFetch } from '../../shared/outbound/guarded-fetch';
import { type EmbeddingProvider, EmbeddingProviderError } from './provider';

export interface OpenAiCompatibleOptions {
  /** The embeddings endpoint (`…/v1/embeddings`), or its base URL (`…/v1`), to which `/embeddings` is added. */
  url: string;
  model: string;
  apiKey?: string;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /** The server's guarded fetcher; the endpoint's origin is trusted (the operator configured it), redirects are checked. */
  fetch: GuardedFetch;
}

/** The endpoint URL: `url` itself when it ends in `/embeddings`, else `url` + `/embeddings`. */
export function embeddingsEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/embeddings') ? trimmed : `${trimmed}/embeddings`;
}

/**
 * A provider that calls an OpenAI-compatible embeddings API: `POST {model, input: texts}`
 * with a bearer key, answered by `{data: [{index, embedding}]}`.
 */
export function createOpenAiCompatibleProvider(options: OpenAiCompatibleOptions): EmbeddingProvider {
  const endpoint = embeddingsEndpoint(options.url);
  const trustedOrigins = [new URL(endpoint).origin];
  return {
    name: `openai-compatible:${options.model}`,
    async embed(texts) {
      let response: Response;
      try {
        response = await options.fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({ model: options.model, input: texts }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
          trustedOrigins,
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw new EmbeddingProviderError(`${endpoint} is unreachable (${cause})`);
      }
      if (!response.ok) {
        const text = (await response.text().catch(() => '')).slice(0, 200);
        throw new EmbeddingProviderError(`${endpoint} answered ${response.status}${text ? `: ${text}` : ''}`);
      }
      const body = (await response.json().catch(() => null)) as {
        data?: Array<{ index?: number; embedding?: unknown }>;
      } | null;
      const data = body?.data;
      if (!Array.isArray(data) || data.length !== texts.length) {
        throw new EmbeddingProviderError(`${endpoint} did not answer one embedding per input`);
      }
      const vectors: number[][] = new Array(texts.length);
      data.forEach((entry, position) => {
        const embedding = entry.embedding;
        if (!Array.isArray(embedding) || !embedding.every((value) => typeof value === 'number')) {
          throw new EmbeddingProviderError(
            `${endpoint} answered an embedding that is not an array of numbers`,
          );
        }
        vectors[entry.index ?? position] = embedding;
      });
      return vectors;
    },
  };
}
