import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { localizeBlog } from '../../test/localize-fixture';
import { siteFiles } from '../../test/site-files';
import { build } from '../build';
import { createFolderTarget } from '../deploy/folder-target';
import { runBuildCommand } from './run-build-command';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-cli-'));
  dirs.push(dir);
  return dir;
}

function io() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: (t: string) => {
        out.stdout += t;
      },
      stderr: (t: string) => {
        out.stderr += t;
      },
      isTty: false,
    },
  };
}

describe('cms-build', () => {
  it('builds a snapshot file into a folder, byte-identical to the library build', async () => {
    const dir = tempDir();
    const file = join(dir, 'site.json');
    writeFileSync(file, JSON.stringify(readFixtureSnapshot('blog')));
    const { out, io: streams } = io();
    const code = await runBuildCommand(
      { snapshot: file, out: join(dir, 'cli'), mode: 'full', json: true },
      streams,
    );
    expect(code).toBe(0);
    expect(out.stderr).toContain('rendered 13/13');
    expect(out.stderr).toMatch(/ok: full build b\d+-[0-9a-f]+ \(env dev\): 18 files/);
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({ ok: true, artifacts: 18, deploy: { ok: true, filesUploaded: 18 } });

    const library = join(dir, 'library');
    await build({
      source: readFixtureSnapshot('blog'),
      target: createFolderTarget({ dir: library }),
      mode: 'full',
      workers: 2,
    });
    expect(siteFiles(join(dir, 'cli'))).toEqual(siteFiles(library));
  });

  it('exits 1 with the errors of a failed build and 2 on bad input', async () => {
    const dir = tempDir();
    const snapshot = readFixtureSnapshot('blog');
    snapshot.templates.find((t) => t.name === 'post')!.content = '{{ x | nope }}';
    const file = join(dir, 'site.json');
    writeFileSync(file, JSON.stringify(snapshot));
    const failed = io();
    expect(await runBuildCommand({ snapshot: file, out: join(dir, 'out') }, failed.io)).toBe(1);
    expect(failed.out.stderr).toContain('error: render_failed: item:post:hello-world');

    const bad = io();
    writeFileSync(join(dir, 'bad.json'), '{"format":"nope"}');
    expect(await runBuildCommand({ snapshot: join(dir, 'bad.json'), out: join(dir, 'out') }, bad.io)).toBe(2);
    expect(bad.out.stderr).toContain('invalid_snapshot');
    const none = io();
    expect(await runBuildCommand({ out: dir }, none.io)).toBe(2);
    expect(none.out.stderr).toContain('give either --snapshot <file> or --api <url>');
  });

  it('builds the locales of a snapshot file: French pages, hreflang links, per-locale sitemaps', async () => {
    const dir = tempDir();
    const snapshot = readFixtureSnapshot('blog');
    localizeBlog(snapshot);
    const file = join(dir, 'site.json');
    writeFileSync(file, JSON.stringify(snapshot));
    const run = io();
    expect(await runBuildCommand({ snapshot: file, out: join(dir, 'out'), mode: 'full' }, run.io)).toBe(0);
    const built = siteFiles(join(dir, 'out'));
    const fr = built.get('fr/blog/bonjour-le-monde/index.html') ?? '';
    expect(fr).toContain('<h1>Bonjour le monde</h1>');
    expect(fr).toContain('hreflang="en" href="https://blog.example.org/en/blog/hello-world/"');
    expect(built.get('sitemaps/fr.xml')).toContain('https://blog.example.org/fr/blog/bonjour-le-monde/');
    expect(built.has('sitemap-index.xml')).toBe(true);
  });

  it('validate writes nothing', async () => {
    const dir = tempDir();
    const file = join(dir, 'site.json');
    writeFileSync(file, JSON.stringify(readFixtureSnapshot('blog')));
    const run = io();
    expect(await runBuildCommand({ snapshot: file, out: join(dir, 'out'), mode: 'validate' }, run.io)).toBe(
      0,
    );
    expect(readdirSync(dir)).toEqual(['site.json']);
  });
});
