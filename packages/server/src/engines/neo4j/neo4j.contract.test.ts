import { randomBytes } from 'node:crypto';
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
    const auditKey = randomBytes(32);
    const engine = createNeo4jEngine({ uri: uri as string, user, password, edition, auditKey });
    await engine.init();
    // A driver of its own: the tampering goes straight to the database, not through the engine.
    const raw = neo4j.driver(uri as string, neo4j.auth.basic(user, password));
    const sessionOn = (graph: string) =>
      raw.session({ database: edition === 'enterprise' ? databaseName(graph) : undefined });
    return {
      engine,
      auditKey,
      async truncateAudit(graph, fromSeq) {
        const session = sessionOn(graph);
        try {
          await session.run('MATCH (a:TAudit {g: $g}) WHERE a.seq >= $from DELETE a', {
            g: graph,
            from: neo4j.int(fromSeq),
          });
        } finally {
          await session.close();
        }
      },
      async overwriteAudit(graph, records) {
        const session = sessionOn(graph);
        try {
          for (const r of records) {
            await session.run(
              `MATCH (a:TAudit {g: $g, seq: $seq})
               SET a.ts = $ts, a.actor = $actor, a.action = $action, a.target = $target,
                   a.data = $data, a.prevHash = $prevHash, a.hash = $hash`,
              {
                g: graph,
                seq: neo4j.int(r.seq),
                ts: r.ts,
                actor: r.actor,
                action: r.action,
                target: r.target,
                data: r.data === undefined ? null : JSON.stringify(r.data),
                prevHash: r.prevHash,
                hash: r.hash,
              },
            );
          }
        } finally {
          await session.close();
        }
      },
      async tamperAudit(graph, seq) {
        const session = sessionOn(graph);
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
