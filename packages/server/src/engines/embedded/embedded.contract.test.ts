import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { describeEngineContract } from '../../../test/engine-contract';
import { createEmbeddedEngine } from './index';

describeEngineContract('embedded', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'trellis-contract-'));
  const engine = createEmbeddedEngine({ dataDir });
  await engine.init();
  return {
    engine,
    async tamperAudit(graph, seq) {
      // A second connection on the graph's file, as an attacker with disk access would have.
      const db = new Database(join(dataDir, 'graphs', `${graph}.db`));
      try {
        db.prepare(`UPDATE audit SET actor = actor || '-tampered' WHERE seq = ?`).run(seq);
      } finally {
        db.close();
      }
    },
    async cleanup() {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
