import type { GraphEngine } from '../port';

export interface Neo4jEngineOptions {
  uri: string;
  user: string;
  password?: string;
  /** `community`: one database, graph name on every node; `enterprise`: one database per graph. */
  edition: 'community' | 'enterprise';
}

/** The Neo4j engine over Bolt (being written; see issue 3). */
export function createNeo4jEngine(_options: Neo4jEngineOptions): GraphEngine {
  throw new Error('The Neo4j engine is not written yet');
}
