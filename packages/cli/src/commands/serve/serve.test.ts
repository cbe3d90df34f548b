import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Output } from '../../io/output';
import { capture } from '../../test-support/run-cli';
import { serve } from './serve';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cms-serve-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function site(root: string) {
  await mkdir(join(root, 'posts', 'hello'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<a href="/posts/hello/">Hello</a>');
  await writeFile(join(root, 'posts', 'hello', 'index.html'), '<h1>Hello</h1>');
  await writeFile(join(root, 'about.html'), '<h1>About</h1>');
  await writeFile(join(root, 'style.css'), 'body{}');
  await writeFile(join(root, '404.html'), '<h1>Missing</h1>');
  await writeFile(join(dir, 'secret.txt'), 'outside');
}

/** Runs `cms serve` on port 0, calls `check` with its URL, then stops it as Ctrl-C would. */
async function withServer(root: string, check: (url: string) => Promise<void>): Promise<string> {
  const stderr = capture();
  const out = new Output({ stdout: capture(), stderr, json: false });
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let failure: unknown;
  const code = await serve({
    out,
    dir: root,
    host: '127.0.0.1',
    port: 0,
    stop: stopped,
    onListening: (url) => {
      check(url).then(stop, (error) => {
        failure = error;
        stop();
      });
    },
  });
  if (failure) throw failure;
  expect(code).toBe(0);
  return stderr.text;
}

describe('cms serve', () => {
  it('serves a build folder on 127.0.0.1 with clean URLs, a 404 page and nothing outside it', async () => {
    const root = join(dir, 'dist');
    await site(root);
    const notes = await withServer(root, async (url) => {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const home = await fetch(url);
      expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
      // The home page's link resolves.
      const link = /href="([^"]+)"/.exec(await home.text())![1]!;
      expect(await (await fetch(new URL(link, url))).text()).toBe('<h1>Hello</h1>');
      const redirect = await fetch(new URL('/posts/hello', url), { redirect: 'manual' });
      expect(redirect.status).toBe(301);
      expect(redirect.headers.get('location')).toBe('/posts/hello/');
      expect(await (await fetch(new URL('/about', url))).text()).toBe('<h1>About</h1>');
      expect((await fetch(new URL('/style.css', url))).headers.get('content-type')).toBe(
        'text/css; charset=utf-8',
      );
      const missing = await fetch(new URL('/nope/', url));
      expect(missing.status).toBe(404);
      expect(await missing.text()).toBe('<h1>Missing</h1>');
      const outside = await fetch(new URL('/..%2fsecret.txt', url));
      expect(outside.status).toBe(404);
      expect(await outside.text()).not.toContain('outside');
    });
    expect(notes).toContain(`Serving ${root} at http://127.0.0.1:`);
    expect(notes).toContain('Stopped.');
  });

  it("serves a directory deploy target's current build", async () => {
    const root = join(dir, 'target');
    await site(join(root, 'versions', 'b1'));
    await symlink(join('versions', 'b1'), join(root, 'current'));
    await withServer(root, async (url) => {
      expect(await (await fetch(new URL('/posts/hello/', url))).text()).toBe('<h1>Hello</h1>');
    });
  });
});
