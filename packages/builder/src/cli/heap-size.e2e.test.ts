import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { tempDir } from '../../test/temp-dir';

// the built command (`pnpm build` first), as a user runs it
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');

describe('cms-build --max-heap', () => {
  it('builds in a process started again with that heap limit', () => {
    expect(existsSync(cli), `${cli} (run pnpm build first)`).toBe(true);
    const dir = tempDir('trellis-heap-');
    const snapshot = join(dir, 'site.json');
    writeFileSync(snapshot, JSON.stringify(readFixtureSnapshot('blog')));
    // every node process of the command reports its heap limit as it exits
    const report = join(dir, 'report.cjs');
    writeFileSync(
      report,
      "process.on('exit', () => process.stderr.write((process.env.TRELLIS_CMS_BUILD_HEAP_MB ? 'again' : 'first') + ' heap limit ' + Math.round(require('node:v8').getHeapStatistics().heap_size_limit / 1048576) + '\\n'));\n",
    );
    const run = spawnSync(
      process.execPath,
      [cli, '--snapshot', snapshot, '--out', join(dir, 'out'), '--mode', 'full', '--max-heap', '300'],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: `--require ${report}` }, timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('build thread heap limit 300 MB (--max-heap)');
    expect(run.stderr).toMatch(/^ok: full build/m);
    const limit = (which: string) => {
      const found = new RegExp(`^${which} heap limit (\\d+)$`, 'm').exec(run.stderr);
      return found ? Number(found[1]) : null;
    };
    // the first process (node's default limit) and the one that built: 300 MB of old generation, plus the young
    const first = limit('first');
    const again = limit('again');
    expect(first).not.toBeNull();
    expect(first! < 300 || first! > 400).toBe(true);
    expect(again).toBeGreaterThanOrEqual(300);
    expect(again).toBeLessThan(400);
    expect(existsSync(join(dir, 'out', 'index.html'))).toBe(true);
  });
});
