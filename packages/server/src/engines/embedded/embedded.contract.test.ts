import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { describeEngineContract } from '../../../test/engine-contract';
import { createEmbeddedEngine } from './index';

describeEngineContract('embedded', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trellis-contract-'));
  const auditKey = randomBytes(32);
  const engine = createEmbeddedEngine({ dataDir, auditKey });
  await engine.init();
  /** A second connection on the graph's file, as an attacker with disk access would have. */
  const onFile = (graph: string, fn: (db: Database.Database) => void) => {
    const db = new Database(join(dataDir, 'graphs', `${graph}.db`));
    try {
      fn(db);
    } finally {
      db.close();
    }
  };
  return {
    engine,
    auditKey,
    async tamperAudit(graph, seq) {
      onFile(graph, (db) =>
        db.prepare(`UPDATE audit SET actor = actor || '-tampered' WHERE seq = ?`).run(seq),
      );
    },
    async truncateAudit(graph, fromSeq) {
      onFile(graph, (db) => db.prepare('DELETE FROM audit WHERE seq >= ?').run(fromSeq));
    },
    async overwriteAudit(graph, records) {
      onFile(graph, (db) => {
        const update = db.prepare(
          'UPDATE audit SET ts = ?, actor = ?, action = ?, target = ?, data = ?, prev_hash = ?, hash = ? WHERE seq = ?',
        );
        for (const r of records) {
          const data = r.data === undefined ? null : JSON.stringify(r.data);
          update.run(r.ts, r.actor, r.action, r.target, data, r.prevHash, r.hash, r.seq);
        }
      });
    },
    async cleanup() {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
