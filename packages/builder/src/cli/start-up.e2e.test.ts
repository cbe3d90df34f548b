import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { tempDir } from '../../test/temp-dir';

// the built command (`pnpm build` first), as a user runs it
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');

describe('cms-build start-up', () => {
  it('builds from a snapshot file without loading the SDK or zod (core schemas), nor importing liquidjs, on any thread', () => {
    expect(existsSync(cli), `${cli} (run pnpm build first)`).toBe(true);
    const dir = tempDir('trellis-start-up-');
    const snapshot = join(dir, 'site.json');
    writeFileSync(snapshot, JSON.stringify(readFixtureSnapshot('blog')));
    // every module the process resolves, on every thread, as a line of `loaded.txt`
    const loaded = join(dir, 'loaded.txt');
    writeFileSync(loaded, '');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const found = await next(specifier, context);\n  appendFileSync(${JSON.stringify(loaded)}, found.url + '\\n');\n  return found;\n}\n`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        pathToFileURL(register).href,
        cli,
        '--snapshot',
        snapshot,
        '--out',
        join(dir, 'out'),
        '--mode',
        'full',
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^ok: full build/m);
    const urls = readFileSync(loaded, 'utf8').split('\n');
    // the hook saw the build's modules (marked is loaded by the render workers)
    expect(urls.some((url) => url.includes('/marked/'))).toBe(true);
    expect(urls.filter((url) => /\/(zod|@trelliscms\/sdk|sdk\/dist)\//.test(url))).toEqual([]);
    // liquidjs (CommonJS) is loaded by `require` on every thread (tsup.config.ts), never by an
    // `import`, for which Node would run its CommonJS export lexer over it first
    expect(urls.filter((url) => url.includes('/liquidjs/'))).toEqual([]);
  });
});
