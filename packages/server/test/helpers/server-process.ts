import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built server's entry (`pnpm build` makes it). */
export const SERVER_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** The built server running as a child process on a temp data dir. */
export interface ServerProcess {
  url: string;
  port: number;
  ownerKey: string;
  child: ChildProcess;
  /** Everything the server wrote so far (JSON log lines). */
  log(): string;
  /** Resolves once the log holds a line matching `pattern` (rejects after `timeoutMs`). */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code once the process exited. */
  exited: Promise<number | null>;
  /** Kills the process if it still runs (SIGKILL) and removes its data dir. */
  cleanup(): Promise<void>;
}

/** A loopback port nothing listens on right now: listen on port 0, read the port, close. */
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

/** Starts `dist/main.js` on a fresh temp data dir and waits until GET /api/health answers. */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  if (!existsSync(SERVER_MAIN)) throw new Error(`run \`pnpm build\` first: ${SERVER_MAIN} is missing`);
  const dataDir = await mkdtemp(join(tmpdir(), 'trellis-process-'));
  const port = await freePort();
  const ownerKey = `process-owner-key-${Math.random().toString(36).slice(2)}-0123456789`;
  const child = spawn(process.execPath, [SERVER_MAIN], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
      CMS_DATA_DIR: join(dataDir, 'data'),
      HOST: '127.0.0.1',
      PORT: String(port),
      CMS_OWNER_KEY: ownerKey,
      CMS_SCHEDULER: '0',
      LOG_LEVEL: 'info',
      // A busy test machine's event-loop delay must not shed these requests (set it to test shedding).
      LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const cleanup = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  const waitForLog = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = output.split('\n').find((candidate) => pattern.test(candidate));
        if (line === undefined) return false;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(line);
        return true;
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no log line matched ${pattern} within ${timeoutMs} ms:\n${output.slice(-4000)}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  try {
    for (const deadline = Date.now() + 60_000; ; ) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
      try {
        if ((await fetch(`${url}/api/health`)).ok) break;
      } catch {}
      if (Date.now() > deadline) throw new Error(`the server did not answer within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { url, port, ownerKey, child, log: () => output, waitForLog, exited, cleanup };
}
