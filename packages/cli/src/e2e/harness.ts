import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of this package (this file is src/e2e/harness.ts). */
export const CLI_DIR = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The folder of the installed package `name` (a dependency of the cli), found as Node finds
 * packages: in the nearest `node_modules` up the tree.
 */
export function packageDir(name: string): string {
  for (let dir = CLI_DIR; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`${name} is not installed: run pnpm install`);
  }
}

interface Manifest {
  exports: Record<string, { import?: string }>;
  bin?: Record<string, string>;
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

export const SDK_DIR = packageDir('@trelliscms/sdk');
export const CORE_DIR = packageDir('@trelliscms/core');
const SERVER_DIR = packageDir('@trelliscms/server');

/** The built entry points the published packages declare. */
export const SERVER_MAIN = join(SERVER_DIR, manifest(SERVER_DIR).bin!['trellis-server']!);
export const CLI_MAIN = join(CLI_DIR, manifest(CLI_DIR).bin!.cms!);
export const SDK_DIST = join(SDK_DIR, manifest(SDK_DIR).exports['.']!.import!);
export const CORE_DIST = join(CORE_DIR, manifest(CORE_DIR).exports['.']!.import!);
/** The World Factbook dataset of the server's tests. */
export const FIXTURE = join(SERVER_DIR, 'test/fixtures/world-factbook.json');

/** Throws a clear message when the packages the end-to-end tests run are not built. */
export function assertBuilt(): void {
  const missing = [SERVER_MAIN, CLI_MAIN, SDK_DIST].filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(
      `End-to-end tests run the built packages; run \`pnpm build\` first (missing ${missing.join(', ')})`,
    );
  }
}

/** A port nothing listens on right now: listen on port 0, read the port, close. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** The built server running as a child process on a temp data dir. */
export interface ServerProcess {
  url: string;
  ownerKey: string;
  /** The folder the server runs in (its data is in `<dataDir>/data`). */
  dataDir: string;
  /** The server's process id. */
  pid: number;
  /** Everything the server wrote to stdout and stderr (JSON log lines). */
  log(): string;
  /**
   * Stops the server (SIGTERM, then SIGKILL after 10 s) and waits until it exited; removes its
   * data dir when the harness made it (not when it was given to {@link startServer}).
   */
  stop(): Promise<void>;
  /** Sends `signal` (e.g. SIGKILL for a crash) and waits until the process exited; keeps the data. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /**
   * Run on this folder (its data in `<dataDir>/data`), e.g. a second server on the data of a
   * first one, or a restart; the caller removes it. Default: a fresh temp dir that `stop` removes.
   */
  dataDir?: string;
  /** The owner key: what the first start on `dataDir` stored. Default: a random one. */
  ownerKey?: string;
}

/** Starts the built server (its `trellis-server` bin) and waits until GET /api/health answers. */
export async function startServer(
  env: Record<string, string> = {},
  options: StartServerOptions = {},
): Promise<ServerProcess> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'trellis-e2e-')));
  const port = await freePort();
  const ownerKey = options.ownerKey ?? `e2e-owner-key-${Math.random().toString(36).slice(2)}-0123456789`;
  const child: ChildProcess = spawn(process.execPath, [SERVER_MAIN], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
      CMS_DATA_DIR: join(dataDir, 'data'),
      HOST: '127.0.0.1',
      PORT: String(port),
      CMS_OWNER_KEY: ownerKey,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server did not answer within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  return {
    url,
    ownerKey,
    dataDir,
    pid: child.pid ?? -1,
    log: () => output,
    kill,
    stop: async () => {
      await kill('SIGTERM');
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What one `cms` run gave. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `cms` as a child process (no terminal), with `env` and `cwd`; `input` is piped to its stdin. */
export function cms(
  args: string[],
  { env, cwd, input }: { env: Record<string, string>; cwd: string; input?: string },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
