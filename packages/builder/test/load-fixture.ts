import { existsSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, type BuildResult, build } from '../src/build';
import { createDirectoryTarget } from '../src/deploy/directory-target';
import type { DeployTarget } from '../src/deploy/types';
import type { Snapshot } from '../src/snapshot/types';
import { tempDir } from './temp-dir';

const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** A fixture site: its snapshot, a directory deploy target in a temp folder, and helpers to read the live site. */
export interface Fixture {
  /** a fresh copy of the fixture's snapshot (templates inlined); edit it freely */
  snapshot: Snapshot;
  /** the temp folder holding the deploy target */
  root: string;
  target: DeployTarget;
  /** builds `snapshot` (or `options.source`) to the directory target */
  build(options?: Partial<BuildOptions>): Promise<BuildResult>;
  /** a file of the live version, by site path (`blog/hello/index.html` or `/blog/hello/`) */
  readFile(path: string): Promise<string>;
  pathExists(path: string): boolean;
  /** removes the temp folder */
  cleanup(): void;
}

function sitePath(path: string): string {
  const trimmed = path.replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? `${trimmed}index.html` : trimmed;
}

/** Reads `test/fixtures/<name>/snapshot.json`, inlining templates given as `file`. */
export function readFixtureSnapshot(name: string): Snapshot {
  const dir = join(fixturesDir, name);
  const snapshot = JSON.parse(readFileSync(join(dir, 'snapshot.json'), 'utf8')) as Snapshot & {
    templates: Array<{ file?: string; content: string }>;
  };
  for (const template of snapshot.templates) {
    if (template.file) {
      template.content = readFileSync(join(dir, template.file), 'utf8');
      delete template.file;
    }
  }
  return snapshot;
}

/** Loads a fixture site into a fresh temp folder (Astro's `loadFixture`, for the builder). */
export function loadFixture(name: string): Fixture {
  const root = tempDir(`fixture-${name}`);
  const target = createDirectoryTarget({ root: join(root, 'site') });
  const fixture: Fixture = {
    snapshot: readFixtureSnapshot(name),
    root,
    target,
    build: (options = {}) => build({ source: fixture.snapshot, target, workers: 1, ...options }),
    readFile: (path) => readFile(join(root, 'site', 'current', sitePath(path)), 'utf8'),
    pathExists: (path) => existsSync(join(root, 'site', 'current', sitePath(path))),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
  return fixture;
}
