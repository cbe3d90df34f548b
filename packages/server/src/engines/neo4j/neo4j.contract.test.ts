import neo4j from 'neo4j-driver';
import { describe, vi } from 'vitest';
import { describeEngineContract } from '../../../test/engine-contract';
import { databaseName } from './database-name';
import { createNeo4jEngine } from './index';

// Runs against a real Neo4j when NEO4J_URI is set (`pnpm neo4j:start`, or .ci/run).
const uri = process.env.NEO4J_URI;
const user = process.env.NEO4J_USER ?? 'neo4j';
// The password of tools/neo4j-harness (`pnpm neo4j:start`) unless told otherwise.
const password = process.env.NEO4J_PASSWORD ?? 'trellis-test-pw';
const edition = process.env.NEO4J_EDITION === 'enterprise' ? 'enterprise' : 'community';

describe.skipIf(!uri)('neo4j engine', () => {
  // A freshly started server compiles each query shape once (and creates vector indexes on
  // first use), which on a loaded CI machine can take longer than the default per-test limit.
  vi.setConfig({ testTimeout: 120_000 });
  describeEngineContract(`neo4j (${edition})`, async () => {
    const engine = createNeo4jEngine({ uri: uri as string, user, password, edition });
    await engine.init();
    // A driver of its own: the tampering goes straight to the database, not through the engine.
    const raw = neo4j.driver(uri as string, neo4j.auth.basic(user, password));
    return {
      engine,
      async tamperAudit(graph, seq) {
        const session = raw.session({ database: edition === 'enterprise' ? databaseName(graph) : undefined });
        try {
          const result = await session.run(
            `MATCH (a:TAudit {g: $g, seq: $seq}) SET a.actor = a.actor + '-tampered' RETURN count(a) AS c`,
            { g: graph, seq: neo4j.int(seq) },
          );
          if (result.records[0]?.get('c').toNumber() !== 1)
            throw new Error(`No audit record ${seq} in ${graph}`);
        } finally {
          await session.close();
        }
      },
      async cleanup() {
        await raw.close();
        await engine.close();
      },
    };
  });
});
