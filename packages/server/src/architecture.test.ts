import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The server's layering (README "Layout"): the HTTP layer — everything under `src/http/` and
 * every feature's `routes/` folder — may import domain code; domain code (everything else in
 * `src/` that is not a test, a test helper or an entry point) never imports the HTTP layer.
 */
const SRC = dirname(fileURLToPath(import.meta.url));

/** Entry points wire everything together. */
const EXEMPT = new Set(['index.ts', 'main.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** `src`-relative path with forward slashes. */
function srcPath(file: string): string {
  return relative(SRC, file).split('\\').join('/');
}

export function isHttpModule(path: string): boolean {
  return path.startsWith('http/') || path.split('/').slice(0, -1).includes('routes');
}

function isDomainModule(path: string): boolean {
  return !isHttpModule(path) && !EXEMPT.has(path);
}

/** The `src`-relative modules a file imports by relative path (static, dynamic and re-exports). */
export function relativeImports(file: string, source: string): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => {
      const target = srcPath(resolve(dirname(file), name));
      return target.endsWith('.ts') ? target : `${target}.ts`;
    });
}

describe('server layering', () => {
  const files = sourceFiles(SRC).map((file) => ({ file, path: srcPath(file) }));

  it('finds both layers', () => {
    expect(files.filter((f) => isHttpModule(f.path)).length).toBeGreaterThan(10);
    expect(files.filter((f) => isDomainModule(f.path)).length).toBeGreaterThan(10);
  });

  it('reads every kind of import', () => {
    const found = relativeImports(
      join(SRC, 'releases/x.ts'),
      [
        "import { a } from '../http/plugins/context';",
        "import type { B } from './routes/releases';",
        "export * from '../platform/routes/sites';",
        "const c = await import('../http/app');",
      ].join('\n'),
    );
    expect(found).toEqual([
      'http/plugins/context.ts',
      'releases/routes/releases.ts',
      'platform/routes/sites.ts',
      'http/app.ts',
    ]);
  });

  it('keeps domain modules free of the HTTP layer (src/http/, */routes/)', () => {
    const violations = files
      .filter((f) => isDomainModule(f.path))
      .flatMap((f) =>
        relativeImports(f.file, readFileSync(f.file, 'utf8'))
          .filter((target) => isHttpModule(target))
          .map((target) => `${f.path} imports ${target}`),
      );
    expect(violations).toEqual([]);
  });
});
