import type { Config } from '../config';
import { createEmbeddedEngine } from './embedded';
import { createNeo4jEngine } from './neo4j';
import type { GraphEngine } from './port';
import { loadAuditKey } from './shared/audit-key';

export * from './port';

/**
 * The engine the configuration names, its audit chains keyed with `auditKey` (default: the key
 * the configuration names, see {@link loadAuditKey}). Nothing connects until `init()`.
 */
export function createEngine(config: Config, auditKey?: Uint8Array): GraphEngine {
  const key = auditKey ?? loadAuditKey({ envKey: config.CMS_AUDIT_KEY, dataDir: config.CMS_DATA_DIR });
  if (config.CMS_ENGINE === 'neo4j') {
    return createNeo4jEngine({
      uri: config.NEO4J_URI ?? 'bolt://127.0.0.1:7687',
      user: config.NEO4J_USER,
      password: config.NEO4J_PASSWORD,
      edition: config.NEO4J_EDITION,
      auditKey: key,
    });
  }
  return createEmbeddedEngine({ dataDir: config.CMS_DATA_DIR, auditKey: key });
}
