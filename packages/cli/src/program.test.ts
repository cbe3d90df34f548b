import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestServer, type TestServer } from '@trelliscms/sdk/test-support';
import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProgram } from './program';
import { capture, runCli } from './test-support/run-cli';

let dir: string;
let server: TestServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cms-cli-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const site = {
  id: 'site:blog',
  name: 'Blog',
  slug: 'blog',
  graphName: 'g-1',
  createdAt: '2026-11-22T03:00:00.000Z',
};
const env = () => ({ XDG_CONFIG_HOME: join(dir, 'config') });

describe('cms login and profiles', () => {
  it('checks the key, writes a private config file under XDG_CONFIG_HOME, and later commands use it', async () => {
    server = await createTestServer({
      'GET /api/health': () => ({
        body: { status: 'ok', platformGraph: 'platform', lastBuildAt: null, lastBuildId: null },
      }),
      'GET /api/access/my-sites': () => ({
        body: [{ siteId: 'site:blog', siteName: 'Blog', graphName: 'g-1', role: 'owner' }],
      }),
      'GET /api/sites': () => ({ body: [site] }),
    });
    const login = await runCli(
      ['login', '--url', server.url, '--key', 'tk_owner_key_0123456789', '--site', 'site:blog'],
      {
        env: env(),
        cwd: dir,
      },
    );
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('1 site(s) accessible');
    const file = join(dir, 'config', 'trellis', 'config.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      currentProfile: 'default',
      profiles: { default: { url: server.url, key: 'tk_owner_key_0123456789', site: 'site:blog' } },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const list = await runCli(['sites', 'list', '--json'], { env: env(), cwd: dir });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([site]);
    expect(server.hits('GET /api/sites')[0]?.headers.authorization).toBe('Bearer tk_owner_key_0123456789');
  });

  it('lets CMS_URL and CMS_API_KEY override the profile', async () => {
    server = await createTestServer({ 'GET /api/sites': () => ({ body: [site] }) });
    await writeFile(join(dir, 'x'), '');
    const result = await runCli(['sites', 'list'], {
      env: { ...env(), CMS_URL: server.url, CMS_API_KEY: 'from-env' },
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('site:blog');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer from-env');
  });

  it('exits 2 with a clear message when no server is configured or a site is needed', async () => {
    const none = await runCli(['sites', 'list'], { env: env(), cwd: dir });
    expect(none).toMatchObject({ code: 2, stdout: '' });
    expect(none.stderr).toContain('No server: run cms login');
    const noSite = await runCli(['types', 'list', '--url', 'http://127.0.0.1:9'], { env: env(), cwd: dir });
    expect(noSite.code).toBe(2);
    expect(noSite.stderr).toContain('No site: pass --site');
  });
});

describe('--url and --site forms', () => {
  it('takes a bare host, a trailing /api and a bare site slug', async () => {
    server = await createTestServer({ 'GET /api/types': () => ({ body: [] }) });
    const host = server.url.replace('http://', '');
    for (const url of [host, `${host}/api`, `${server.url}/api/`]) {
      const result = await runCli(['types', 'list', '--url', url, '--site', 'blog', '--key', 'k'], {
        env: env(),
        cwd: dir,
      });
      expect(result.code, `${url}: ${result.stderr}`).toBe(0);
    }
    expect(server.hits('GET /api/types').map((hit) => hit.headers['x-site-id'])).toEqual([
      'site:blog',
      'site:blog',
      'site:blog',
    ]);
  });
});

describe('errors and exit codes', () => {
  it('prints status, code and hint of an API error without a stack, and exits 1', async () => {
    server = await createTestServer({
      'GET /api/types/movie': () => ({
        status: 404,
        body: {
          error: 'Content type `movie` not found.',
          code: 'not_found',
          hint: 'cms types list shows them',
        },
      }),
    });
    const result = await runCli(['types', 'get', 'movie', '--url', server.url, '--site', 'site:blog'], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: 404 not_found: Content type `movie` not found.\nHint: cms types list shows them\n',
    );
  });

  it('prints the error as JSON on stdout with --json', async () => {
    server = await createTestServer({
      'GET /api/sites': () => ({ status: 403, body: { error: 'No access.', code: 'forbidden' } }),
    });
    const result = await runCli(['sites', 'list', '--json', '--url', server.url], { env: env(), cwd: dir });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      status: 403,
      code: 'forbidden',
      error: 'No access.',
      hint: null,
    });
  });

  it('exits 3 when the server cannot be reached', async () => {
    server = await createTestServer({});
    const url = server.url;
    await server.close();
    server = undefined;
    const result = await runCli(['health', '--url', url], { env: env(), cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('could not be reached');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 on an unknown option, a missing argument or a bad number', async () => {
    expect((await runCli(['sites', 'list', '--bogus'], { env: env(), cwd: dir })).code).toBe(2);
    expect((await runCli(['import', 'records', 'a.json'], { env: env(), cwd: dir })).code).toBe(2);
    const bad = await runCli(['content', 'list', 'post', '--limit', 'ten'], { env: env(), cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be a positive integer');
  });
});

describe('help', () => {
  it('gives every command and every group an example in its --help', () => {
    const program = createProgram(
      { stdout: capture(), stderr: capture(), env: {}, fs: {} as never, cwd: dir },
      { exitCode: 0 },
    );
    const commands: Command[] = [];
    const walk = (command: Command) => {
      commands.push(command);
      for (const child of command.commands) walk(child);
    };
    walk(program);
    expect(commands.filter((command) => command.commands.length > 0).length).toBeGreaterThan(15);
    expect(commands.length).toBeGreaterThan(60);
    for (const command of commands) {
      let text = '';
      command.configureOutput({ writeOut: (chunk) => (text += chunk) });
      command.outputHelp();
      expect(text, command.name()).toMatch(/Examples?:\n {2}\$ cms /);
    }
  });

  it('suggests the nearest command, subcommand or option for a typo', async () => {
    const cases: [string[], string][] = [
      [['sitse'], 'Did you mean sites?'],
      [['sites', 'lsit'], 'Did you mean list?'],
      [['sites', 'list', '--jsn'], 'Did you mean --json?'],
      [['profiles', 'lst'], 'Did you mean list?'],
    ];
    for (const [argv, suggestion] of cases) {
      const result = await runCli(argv, { env: env(), cwd: dir });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toContain(suggestion);
    }
  });

  it('answers --help with exit code 0 on stdout', async () => {
    const result = await runCli(['import', 'records', '--help'], { env: env(), cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--errors-file <path>');
  });
});
