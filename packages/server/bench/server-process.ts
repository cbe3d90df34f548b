import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built server's entry point (`pnpm build` makes it; the benchmark measures what ships).
 * BENCH_SERVER_MAIN names another build of it (e.g. one of an earlier commit, to compare).
 */
export const SERVER_MAIN =
  process.env.BENCH_SERVER_MAIN ?? fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** One JSON log line of the server that a benchmark asked to keep (see {@link startBuiltServer}). */
export interface LogLine {
  /** When this process read it (ms since the epoch). */
  readAt: number;
  msg: string;
  [key: string]: unknown;
}

/** The built server running as a child process on a temp data dir. */
export interface BuiltServer {
  base: string;
  ownerKey: string;
  pid: number;
  /** The kept log lines, oldest first. */
  logs: LogLine[];
  /** Stops the process (SIGTERM, SIGKILL after 15 s) and removes its data dir. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
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

/**
 * Starts `dist/main.js` as its own process, as it runs in production (log level info, the
 * deployment scheduler on), with a temp CMS_DATA_DIR, and waits until GET /api/health
 * answers. Log lines whose `msg` passes `keep` are parsed and kept; the rest are dropped
 * (the server logs every request at info).
 */
export async function startBuiltServer({
  env = {},
  keep,
}: {
  env?: Record<string, string>;
  keep: (msg: string) => boolean;
}): Promise<BuiltServer> {
  if (!existsSync(SERVER_MAIN)) {
    throw new Error(
      `${SERVER_MAIN} is missing: run \`pnpm build\` first (the benchmark runs the built server)`,
    );
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'trellis-release-bench-'));
  const port = await freePort();
  const ownerKey = `bench-owner-key-${Math.random().toString(36).slice(2)}-0123456789`;
  const child: ChildProcess = spawn(process.execPath, [SERVER_MAIN], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
      CMS_DATA_DIR: join(dataDir, 'data'),
      HOST: '127.0.0.1',
      PORT: String(port),
      CMS_OWNER_KEY: ownerKey,
      LOG_LEVEL: 'info',
      // The benchmark polls pages every ~20 ms and sends a few thousand API calls.
      RATE_LIMIT_MAX: '100000000',
      BODY_LIMIT_BYTES: String(64 * 1024 * 1024),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  let tail = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = tail + chunk.toString();
    const lines = text.split('\n');
    tail = lines.pop() ?? '';
    const readAt = Date.now();
    for (const line of lines) {
      const match = /"msg":"([^"]*)"/.exec(line);
      if (!match?.[1] || !keep(match[1])) continue;
      try {
        logs.push({ ...(JSON.parse(line) as Record<string, unknown>), readAt, msg: match[1] });
      } catch {}
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  for (;;) {
    if (child.exitCode !== null) {
      cleanup();
      throw new Error(`The server exited with ${child.exitCode}:\n${stderr}`);
    }
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      cleanup();
      throw new Error(`The server did not answer within 90 s:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    base,
    ownerKey,
    pid: child.pid ?? 0,
    logs,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      cleanup();
    },
  };
}
