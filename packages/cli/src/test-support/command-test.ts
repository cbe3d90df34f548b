import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestServer, type Handler, type TestServer } from '@trelliscms/sdk/test-support';
import { afterEach, beforeEach } from 'vitest';
import { runCli } from './run-cli';

/** What a command test gets from {@link setUpCommandTests}. */
export interface CommandTest {
  /** This test's temp dir: the cwd of `cli` and the home of its config file. */
  readonly dir: string;
  /** Starts the canned server of this test (closed after it). */
  serve(routes: Record<string, Handler>): Promise<TestServer>;
  /** Runs `cms` in-process against the served server, with `--key k --site site:blog`. */
  cli(argv: string[]): ReturnType<typeof runCli>;
  /** The flags `cli` adds (`--url <served> --key k --site site:blog`), for calling `runCli` directly. */
  connection(): string[];
}

/** Gives every test of the file a fresh temp dir and removes it, and its server, afterwards. */
export function setUpCommandTests(prefix = 'cms-cmd-'): CommandTest {
  let dir = '';
  let server: TestServer | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    serve: async (routes) => {
      server = await createTestServer(routes);
      return server;
    },
    connection: () => {
      if (!server) throw new Error('serve() the test server first');
      return ['--url', server.url, '--key', 'k', '--site', 'site:blog'];
    },
    cli: (argv) => {
      if (!server) throw new Error('serve() the test server first');
      return runCli([...argv, '--url', server.url, '--key', 'k', '--site', 'site:blog'], {
        env: { XDG_CONFIG_HOME: join(dir, 'config') },
        cwd: dir,
      });
    },
  };
}
