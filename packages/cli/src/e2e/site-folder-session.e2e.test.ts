import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, type CliRun, cms, type ServerProcess, startServer } from './harness';

/**
 * A site kept as files, through the built `cms` against the built server: log in with the key
 * on stdin, juggle profiles, then init a folder, push it (dry run, for real, again unchanged),
 * add a post, build, read the pages, pull the site into a second folder and push that back
 * unchanged. Steps run in order and share state.
 */
describe('site folder session through the cms CLI', { timeout: 180_000 }, () => {
  let server: ServerProcess;
  let work: string;
  let env: Record<string, string>;

  const run = (args: string[], options: { cwd?: string; input?: string } = {}): Promise<CliRun> =>
    cms(args, {
      env,
      cwd: options.cwd ?? work,
      ...(options.input === undefined ? {} : { input: options.input }),
    });
  const ok = async (args: string[], options: { cwd?: string; input?: string } = {}) => {
    const result = await run(args, options);
    if (result.code !== 0) throw new Error(`cms ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
    return result;
  };

  beforeAll(async () => {
    assertBuilt();
    server = await startServer();
    work = await mkdtemp(join(tmpdir(), 'cms-folder-e2e-'));
    env = { XDG_CONFIG_HOME: join(work, 'config') };
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('logs in with the key on stdin, a bare host and /api; profiles, whoami and logout', async () => {
    const host = `${server.url.replace('http://', '')}/api`;
    const login = await ok(['login', '--url', host, '--key-stdin'], { input: `${server.ownerKey}\n` });
    expect(login.stdout).toContain(`Logged in to ${server.url} as profile "default"`);
    await ok(['login', '--url', server.url, '--key-stdin', '--profile', 'spare'], { input: server.ownerKey });
    const profiles = await ok(['profiles', 'list']);
    expect(profiles.stdout).toMatch(/\n\* +spare /);
    expect(profiles.stdout).not.toContain(server.ownerKey);
    await ok(['profiles', 'use', 'default']);

    await ok(['sites', 'create', 'Folder', '--slug', 'folder', '--starter-kit', 'none', '--use']);
    const who = await ok(['whoami', '--json']);
    expect(JSON.parse(who.stdout)).toMatchObject({
      url: server.url,
      profile: 'default',
      site: 'site:folder',
      sites: expect.arrayContaining([
        expect.objectContaining({ siteId: 'site:folder', role: 'owner', current: true }),
      ]),
    });
    const sites = await ok(['sites', 'list']);
    expect(sites.stdout).toMatch(/\n\* +site:folder +Folder/);

    await ok(['logout']);
    const loggedOut = await run(['whoami']);
    expect(loggedOut.code).toBe(2);
    expect(loggedOut.stderr).toContain('Not logged in on profile "default"');
    const refused = await run(['types', 'list']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: 401/);
    // The saved URL and site stay: the key is all it takes to log in again.
    await ok(['login', '--key-stdin'], { input: server.ownerKey });
    await ok(['profiles', 'rm', 'spare']);
    expect((await ok(['whoami'])).stdout).toContain('site:    site:folder');
  });

  it('inits a folder and pushes it: a dry run writes nothing, a second push changes nothing', async () => {
    await ok(['init', 'site', '--site', 'folder']);
    const folder = join(work, 'site');
    expect(JSON.parse(await readFile(join(folder, 'trellis.json'), 'utf8'))).toEqual({ site: 'site:folder' });
    const dry = await ok(['push', '--dry-run'], { cwd: folder });
    expect(dry.stdout).toContain('would create 4, would update 0, 0 unchanged');
    expect(JSON.parse((await ok(['types', 'list', '--json'])).stdout)).toEqual([]);
    const pushed = await ok(['push'], { cwd: folder });
    expect(pushed.stdout).toContain('4 created, 0 updated, 0 unchanged');
    const again = await ok(['push', '--json'], { cwd: folder });
    expect(JSON.parse(again.stdout).entries.map((entry: { action: string }) => entry.action)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    // An edit shows up as one update.
    await writeFile(
      join(folder, 'templates', 'post.liquid'),
      (await readFile(join(folder, 'templates', 'post.liquid'), 'utf8')).replace(
        '<article>',
        '<article class="post">',
      ),
    );
    const edited = await ok(['push'], { cwd: folder });
    expect(edited.stdout).toContain('0 created, 1 updated, 3 unchanged');
  });

  it('builds the pushed site: the home listing links to the post page', async () => {
    await ok([
      'content',
      'create',
      'post',
      '--data',
      JSON.stringify({
        title: 'Hello folder',
        slug: 'hello',
        date: '2026-11-25',
        body: 'Made from *files*.',
      }),
    ]);
    const build = JSON.parse((await ok(['build', '--env', 'dev', '--mode', 'full', '--json'])).stdout);
    expect(build.ok).toBe(true);
    const home = await fetch(`${server.url}/sites/folder/dev/`);
    expect(home.status).toBe(200);
    const html = await home.text();
    expect(html).toContain('Hello folder</a>');
    const post = await fetch(`${server.url}/sites/folder/dev/posts/hello/`);
    expect(post.status).toBe(200);
    const page = await post.text();
    expect(page).toContain('<article class="post">');
    expect(page).toContain('<em>files</em>');
    const history = JSON.parse((await ok(['builds', 'history', '--env', 'dev', '--json'])).stdout);
    expect(history[0]).toMatchObject({ buildId: build.buildId, status: 'ok' });
  });

  it('serves the deployed environment folder locally with working links, until Ctrl-C', async () => {
    // The server keeps each environment as a directory deploy target under sites/by-slug/<slug>/<env>.
    const folder = join(server.dataDir, 'data', 'sites', 'by-slug', 'folder', 'dev');
    const child = spawn(process.execPath, [CLI_MAIN, 'serve', folder, '--port', '0', '--json'], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const line = text.split('\n')[0];
          if (text.includes('\n') && line) resolve(JSON.parse(line).url);
        });
        child.once('close', () => reject(new Error(`cms serve ended before listening: ${text}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const home = await (await fetch(url)).text();
      const href = /href="([^"]*hello[^"]*)"/.exec(home)?.[1];
      expect(href, home).toBeDefined();
      const post = await fetch(new URL(href!, url));
      expect(post.status).toBe(200);
      expect(await post.text()).toContain('Hello folder');
    } finally {
      child.kill('SIGINT');
    }
    expect(await closed).toBe(0);
  });

  it('pulls the site into a new folder that pushes back unchanged', async () => {
    const pulled = await ok(['pull', 'copy']);
    expect(pulled.stdout).toContain('1 type(s), 2 template(s), 1 route(s)');
    const copy = join(work, 'copy');
    expect(JSON.parse(await readFile(join(copy, 'trellis.json'), 'utf8'))).toEqual({ site: 'site:folder' });
    for (const file of ['templates/post.liquid', 'templates/home.liquid', 'templates/templates.json']) {
      expect(await readFile(join(copy, file), 'utf8'), file).toBe(
        await readFile(join(work, 'site', file), 'utf8'),
      );
    }
    expect(JSON.parse(await readFile(join(copy, 'types', 'post.json'), 'utf8'))).toMatchObject(
      JSON.parse(await readFile(join(work, 'site', 'types', 'post.json'), 'utf8')),
    );
    const back = await ok(['push'], { cwd: copy });
    expect(back.stdout).toContain('0 created, 0 updated, 4 unchanged');
  });
});
