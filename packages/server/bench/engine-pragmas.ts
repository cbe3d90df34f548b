import type { Database } from 'libsql';

/**
 * The embedded engine's durability and tuning pragmas (engines/embedded/embedded-graph.ts
 * `configure` and `tune`): WAL, synchronous=FULL, a checkpoint every 10,000 pages, a 64 MiB
 * page cache and a 256 MiB memory map. The raw-SQL floors and shape benches open their files
 * with them, so a floor is not flattered by lighter settings than the engine's.
 */
export const ENGINE_PRAGMAS = [
  'journal_mode = WAL',
  'synchronous = FULL',
  'wal_autocheckpoint = 10000',
  'cache_size = -65536',
  'mmap_size = 268435456',
] as const;

export function applyEnginePragmas(db: Pick<Database, 'exec'>): void {
  for (const pragma of ENGINE_PRAGMAS) db.exec(`PRAGMA ${pragma}`);
}
