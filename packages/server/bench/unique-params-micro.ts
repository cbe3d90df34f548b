/**
 * The unique value rows of an import batch (round 9): 500-row INSERTs into the engine's
 * `unique_values` binding label and prop per row (4 parameters a row, as createNodeRun did)
 * or once per statement (`?1, ?2`, then value and rid per row). N rows, transactions of 500,
 * the engine's pragmas and schema; process CPU, alternating, a fresh file each. Not part of
 * `pnpm bench`. Run: N=20000 ROUNDS=4 npx tsx --tsconfig bench/tsconfig.json bench/unique-params-micro.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { SCHEMA_SQL } from '../src/engines/embedded/schema';

const N = Number(process.env.N ?? 20000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const values = Array.from({ length: N }, (_, i) => JSON.stringify(`article-${i}`));

function once(shared: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-unique-params-'));
  const db = new Database(join(dir, 'u.db'), { timeout: 5000 });
  try {
    for (const p of ['journal_mode = WAL', 'synchronous = FULL', 'wal_autocheckpoint = 10000'])
      db.exec(`PRAGMA ${p}`);
    db.exec(SCHEMA_SQL);
    const rows = Array.from({ length: 500 }, (_, k) =>
      shared ? `(?1, ?2, ?${3 + 2 * k}, ?${4 + 2 * k})` : '(?, ?, ?, ?)',
    );
    const stmt = db.prepare(`INSERT INTO unique_values (label, prop, value, rid) VALUES ${rows.join(', ')}`);
    const cpu = process.cpuUsage();
    for (let at = 0; at < N; at += 500) {
      const params: (string | number)[] = shared ? ['Article', 'slug'] : [];
      for (let k = at; k < at + 500; k++) {
        if (shared) params.push(values[k]!, k + 1);
        else params.push('Article', 'slug', values[k]!, k + 1);
      }
      db.exec('BEGIN IMMEDIATE');
      stmt.run(params);
      db.exec('COMMIT');
    }
    return `${shared ? 'shared' : 'per row'}: ${cpuMs(process.cpuUsage(cpu)).toFixed(0)} ms cpu; load ${loadavg()[0]!.toFixed(1)}`;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let r = 0; r < ROUNDS; r++) for (const s of r % 2 ? [true, false] : [false, true]) console.log(once(s));
