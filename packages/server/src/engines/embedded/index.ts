import type { GraphEngine } from '../port';

export interface EmbeddedEngineOptions {
  /** CMS_DATA_DIR; graphs live in `<dataDir>/graphs/<name>.db`. */
  dataDir: string;
}

/** The embedded libSQL engine (being written; see issue 3). */
export function createEmbeddedEngine(_options: EmbeddedEngineOptions): GraphEngine {
  throw new Error('The embedded engine is not written yet');
}
