import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_DIR } from './harness';

/**
 * Dependencies: the floor of liquidjs (10.27.2 fixed the advisories the issue names) as
 * installed, and, with `RELIABILITY_NPM_AUDIT=1` (it asks the registry's audit endpoint, which
 * not every registry or mirror offers), no high or critical advisory in the production
 * dependencies (`pnpm audit --prod --audit-level high`).
 */

const REPO = join(SERVER_DIR, '..', '..');

/** The installed version of `name` as `fromPackage` (a workspace folder) resolves it. */
function installedVersion(fromPackage: string, name: string): string {
  const require = createRequire(join(REPO, fromPackage, 'package.json'));
  const manifest = require.resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

function atLeast(version: string, floor: string): boolean {
  const a = version.split('.').map(Number);
  const b = floor.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

describe('dependencies', () => {
  it('has liquidjs at 10.27.2 or later', () => {
    const version = installedVersion('packages/builder', 'liquidjs');
    console.info(`[dependencies] liquidjs ${version}`);
    expect(atLeast(version, '10.27.2'), version).toBe(true);
    expect(atLeast('10.27.1', '10.27.2')).toBe(false);
  });

  it.skipIf(process.env.RELIABILITY_NPM_AUDIT !== '1')(
    'has no high or critical advisory in the production dependencies (pnpm audit)',
    () => {
      let output = '';
      let code = 0;
      try {
        output = execFileSync('pnpm', ['audit', '--prod', '--audit-level', 'high'], {
          cwd: REPO,
          encoding: 'utf8',
        });
      } catch (error) {
        const failed = error as { status?: number; stdout?: string };
        code = failed.status ?? 1;
        output = failed.stdout ?? '';
      }
      console.info(`[dependencies] pnpm audit: exit ${code}\n${output.slice(-2000)}`);
      expect(code, output.slice(-2000)).toBe(0);
    },
    120_000,
  );
});
