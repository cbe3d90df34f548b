/** Turns texts into vectors for `{% similar %}` (one vector per text, in order). */
export interface EmbeddingProvider {
  /** What it is, e.g. `hashed-bow` or `openai-compatible:<model>`. */
  readonly name: string;
  /** Embeds `texts`; rejects with {@link EmbeddingProviderError} when the provider fails. */
  embed(texts: string[]): Promise<number[][]>;
}

/** The provider failed (unreachable, an error status, or an answer of the wrong shape). */
export class EmbeddingProviderError extends Error {
  override readonly name = 'EmbeddingProviderError';
}
