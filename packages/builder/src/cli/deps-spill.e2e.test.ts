import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { siteFiles } from '../../test/site-files';
import { tempDir } from '../../test/temp-dir';
import { readManifest } from '../deploy/manifest-files';
import { runBuildCommand } from './run-build-command';

const here = dirname(fileURLToPath(import.meta.url));
// the built command (`pnpm build` first), as a user runs it
const cli = join(here, '..', '..', 'dist', 'cli.js');
// the bench site's generator (posts with markdown bodies, tags, authors, related posts, an archive)
const generator = pathToFileURL(join(here, '..', '..', '..', '..', 'bench', 'generate-site.mjs')).href;

interface BenchSnapshot {
  items: Array<{ id: string; type: string; fields: Record<string, unknown> }>;
}

async function benchSnapshot(posts: number): Promise<BenchSnapshot> {
  const { generateContent, trellisSnapshot } = (await import(generator)) as {
    generateContent: (count: number) => unknown;
    trellisSnapshot: (content: unknown) => BenchSnapshot;
  };
  return trellisSnapshot(generateContent(posts));
}

function quiet() {
  let stderr = '';
  return {
    get stderr() {
      return stderr;
    },
    io: {
      stdout: () => {},
      stderr: (text: string) => {
        stderr += text;
      },
      isTty: false,
    },
  };
}

describe('cms-build and its dependency spill', () => {
  it('leaves nothing in the temporary folder when it is killed while rendering', async () => {
    expect(existsSync(cli), `${cli} (run pnpm build first)`).toBe(true);
    const dir = tempDir('spill-killed');
    const tmp = join(dir, 'tmp');
    const out = join(dir, 'out');
    const file = join(dir, 'site.json');
    writeFileSync(file, JSON.stringify(await benchSnapshot(3_000)));
    mkdirSync(tmp);
    const child = spawn(process.execPath, [cli, '--snapshot', file, '--out', out, '--mode', 'full'], {
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // wait until pages reach the disk (the workers' chunks have come back: the spill holds lines)
    const written = () => {
      try {
        return readdirSync(join(out, 'posts')).length;
      } catch {
        return 0;
      }
    };
    let sawSpill = false;
    for (let waited = 0; written() < 200; waited += 50) {
      if (child.exitCode !== null) break;
      if (waited > 240_000) throw new Error(`no pages after 240 s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(child.exitCode, `the build ended before it could be killed: ${stderr}`).toBeNull();
    // the spill's file is open (deleted already: its folder was removed as soon as it was opened)
    if (existsSync(`/proc/${child.pid}/fd`)) {
      for (const fd of readdirSync(`/proc/${child.pid}/fd`)) {
        let target = '';
        try {
          target = readlinkSync(`/proc/${child.pid}/fd/${fd}`);
        } catch {
          continue;
        }
        if (target.includes('trellis-deps-')) {
          sawSpill = true;
          expect(target).toMatch(/\(deleted\)$/);
        }
      }
      expect(sawSpill).toBe(true);
    }
    child.kill('SIGKILL');
    await exited;
    expect(readdirSync(tmp)).toEqual([]);
  }, 300_000);

  it('an incremental build after a full one reads the manifest the full build wrote', async () => {
    const dir = tempDir('spill-incremental');
    const snapshot = await benchSnapshot(400);
    const before = join(dir, 'before.json');
    writeFileSync(before, JSON.stringify(snapshot));
    const out = join(dir, 'out');
    const full = quiet();
    expect(await runBuildCommand({ snapshot: before, out, mode: 'full', workers: '2' }, full.io)).toBe(0);
    const written = await readManifest({
      path: join(out, '.trellis', 'manifest.json'),
      shardDir: join(out, '.trellis', 'manifest'),
    });
    // the dependencies went through the spill and back into the manifest's shards
    expect(written?.artifacts.some((a) => Object.keys(a.deps.items).length > 1)).toBe(true);

    // one post's body edited
    const post = snapshot.items.find((item) => item.type === 'post' && typeof item.fields.body === 'string')!;
    post.fields.body = `${String(post.fields.body)}\n\nAn added paragraph.`;
    const after = join(dir, 'after.json');
    writeFileSync(after, JSON.stringify(snapshot));
    const incremental = quiet();
    expect(
      await runBuildCommand({ snapshot: after, out, mode: 'incremental', workers: '2' }, incremental.io),
    ).toBe(0);
    const rendered = /, (\d+) rendered, (\d+) carried over/.exec(incremental.stderr);
    expect(rendered, incremental.stderr).not.toBeNull();
    // it built on the manifest: the unchanged pages were carried, not rendered again
    expect(Number(rendered![1])).toBeGreaterThan(0);
    expect(Number(rendered![1])).toBeLessThan(20);
    expect(Number(rendered![2])).toBeGreaterThan(400);

    // the same pages and manifest as a full build of the edited snapshot
    const fresh = join(dir, 'fresh');
    expect(
      await runBuildCommand({ snapshot: after, out: fresh, mode: 'full', workers: '2' }, quiet().io),
    ).toBe(0);
    expect(siteFiles(out)).toEqual(siteFiles(fresh));
    const read = (root: string) =>
      readManifest({
        path: join(root, '.trellis', 'manifest.json'),
        shardDir: join(root, '.trellis', 'manifest'),
      });
    const [a, b] = await Promise.all([read(out), read(fresh)]);
    expect(JSON.stringify(a?.artifacts)).toBe(JSON.stringify(b?.artifacts));
  }, 300_000);
});
