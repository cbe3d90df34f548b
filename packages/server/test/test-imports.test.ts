import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const serverDir = fileURLToPath(new URL('..', import.meta.url));
const srcDir = join(serverDir, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('test code stays out of the build', () => {
  it('has no module under src/ other than a *.test.ts import from test/', () => {
    const offenders = sourceFiles(srcDir)
      .filter((file) => !file.endsWith('.test.ts'))
      .filter((file) =>
        /\bfrom\s+['"](?:\.\.\/)+test\/|import\(\s*['"](?:\.\.\/)+test\//.test(readFileSync(file, 'utf8')),
      )
      .map((file) => relative(serverDir, file));
    expect(offenders).toEqual([]);
  });
});
