import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestServer, type TestServer } from '@trelliscms/sdk/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { cannedStdin, runCli } from '../../test-support/run-cli';

const t = setUpCommandTests('cms-profiles-');
const env = () => ({ XDG_CONFIG_HOME: join(t.dir, 'config') });
const configFile = () => join(t.dir, 'config', 'trellis', 'config.json');
const cli = (argv: string[], stdin?: ReturnType<typeof cannedStdin>) =>
  runCli(argv, { env: env(), cwd: t.dir, ...(stdin ? { stdin } : {}) });

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KEY = 'tk_secret_key_0123456789';

async function startServer(): Promise<TestServer> {
  server = await createTestServer({
    'GET /api/health': () => ({
      body: { status: 'ok', platformGraph: 'platform', lastBuildAt: null, lastBuildId: null },
    }),
    'GET /api/access/my-sites': () => ({
      body: [
        { siteId: 'site:blog', siteName: 'Blog', graphName: 'g-1', role: 'owner' },
        { siteId: 'site:docs', siteName: 'Docs', graphName: 'g-2', role: 'editor' },
      ],
    }),
  });
  return server;
}

describe('cms login: the key stays out of the command line', () => {
  it('reads the key from standard input with --key-stdin, and takes a bare host and /api', async () => {
    const { url } = await startServer();
    const host = url.replace('http://', '');
    const result = await cli(
      ['login', '--url', `${host}/api/`, '--key-stdin'],
      cannedStdin({ text: `${KEY}\n` }),
    );
    expect(result.code, result.stderr).toBe(0);
    const saved = JSON.parse(await readFile(configFile(), 'utf8'));
    expect(saved.profiles.default).toEqual({ url, key: KEY });
    expect(server!.hits('GET /api/access/my-sites')[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(result.stdout).not.toContain(KEY);
  });

  it('asks with a hidden prompt when a person is at the terminal', async () => {
    const { url } = await startServer();
    const stdin = cannedStdin({ typed: KEY });
    const result = await cli(['login', '--url', url, '--profile', 'local'], stdin);
    expect(result.code, result.stderr).toBe(0);
    expect(stdin.prompts).toEqual(['API key (input hidden): ']);
    expect(JSON.parse(await readFile(configFile(), 'utf8')).profiles.local.key).toBe(KEY);
  });

  it('refuses, exit 2, with no key, no --key-stdin and no terminal', async () => {
    const result = await cli(['login', '--url', 'http://127.0.0.1:9'], cannedStdin({}));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--key-stdin');
  });
});

describe('cms profiles, whoami and logout', () => {
  it('lists profiles with the current one marked, switches, shows who I am, logs out and removes', async () => {
    const { url } = await startServer();
    const stdin = () => cannedStdin({ text: KEY });
    expect((await cli(['login', '--url', url, '--key-stdin', '--site', 'blog'], stdin())).code).toBe(0);
    expect((await cli(['login', '--url', url, '--key-stdin', '--profile', 'prod'], stdin())).code).toBe(0);

    const list = await cli(['profiles', 'list']);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ +NAME +URL +SITE +KEY$/);
    expect(lines[1]).toMatch(/^ +default .*site:blog +tk_sec…6789$/);
    expect(lines[2]).toMatch(/^\* +prod /);
    expect(list.stdout).not.toContain(KEY);

    expect((await cli(['profiles', 'use', 'defualt'])).stderr).toContain('Did you mean "default"?');
    expect((await cli(['profiles', 'use', 'default'])).stdout).toContain('Now using profile "default"');

    const who = await cli(['whoami']);
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toContain(`server:  ${url}`);
    expect(who.stdout).toContain('profile: default');
    expect(who.stdout).toContain('site:    site:blog');
    expect(who.stdout).toMatch(/\n\* +site:blog +Blog +owner\n +site:docs +Docs +editor\n/);

    const out = await cli(['logout']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Logged out of profile "default"');
    const saved = JSON.parse(await readFile(configFile(), 'utf8'));
    expect(saved.profiles.default).toEqual({ url, site: 'site:blog' });
    const after = await cli(['whoami']);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('Not logged in on profile "default": run cms login --key-stdin.');

    // Logging in again reuses the saved URL.
    expect((await cli(['login', '--key-stdin'], stdin())).code).toBe(0);
    expect(JSON.parse(await readFile(configFile(), 'utf8')).profiles.default.key).toBe(KEY);

    const removed = await cli(['profiles', 'rm', 'default']);
    expect(removed.stdout).toContain('Removed profile "default".\nNow using profile "prod".');
    expect(Object.keys(JSON.parse(await readFile(configFile(), 'utf8')).profiles)).toEqual(['prod']);
  });
});
