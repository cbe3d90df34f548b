import type { GraphEngine } from '../port';
import { Neo4jEngine, type Neo4jEngineOptions } from './neo4j-engine';

export type { Neo4jEngineOptions } from './neo4j-engine';

/**
 * The Neo4j engine over Bolt (`neo4j-driver`). Nothing connects until `init()`, which
 * creates the constraints and indexes it needs. See neo4j-engine.ts for the layout.
 */
export function createNeo4jEngine(options: Neo4jEngineOptions): GraphEngine {
  return new Neo4jEngine(options);
}
