import type { Config } from '../config';
import { createEmbeddedEngine } from './embedded';
import { createNeo4jEngine } from './neo4j';
import type { GraphEngine } from './port';

export * from './port';

/** The engine the configuration names. Nothing connects until `init()`. */
export function createEngine(config: Config): GraphEngine {
  if (config.CMS_ENGINE === 'neo4j') {
    return createNeo4jEngine({
      uri: config.NEO4J_URI ?? 'bolt://127.0.0.1:7687',
      user: config.NEO4J_USER,
      password: config.NEO4J_PASSWORD,
      edition: config.NEO4J_EDITION,
    });
  }
  return createEmbeddedEngine({ dataDir: config.CMS_DATA_DIR });
}
