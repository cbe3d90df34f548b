/**
 * What the benchmarks record about the Neo4j server they measure: its JVM flags, heap and page
 * cache (asked of the server itself, so the figures say how it really ran, whoever started it),
 * and its process CPU time (JMX `ProcessCpuTime`: every JVM thread, JIT and GC included), which
 * a busy machine disturbs less than wall-clock time. Also starts and stops a harness of its own
 * (`tools/neo4j-harness`, production JVM profile) for `BENCH_NEO4J=harness`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import neo4j, { type Driver } from 'neo4j-driver';

/** A 1-minute load average at or above this before a figure marks it as measured on a busy machine. */
export const BUSY_LOAD = 1;

export interface Neo4jServerInfo {
  /** The JVM's input arguments, e.g. `-Xmx2g -XX:+UseG1GC …`. */
  jvm: string;
  /** C1 only (`-XX:TieredStopAtLevel=1`, the harness's fast-start test profile) or C2 on. */
  jit: 'C1 only' | 'C2 on';
  pageCache: string;
  vm: string;
}

function connect(uri: string): Driver {
  return neo4j.driver(
    uri,
    neo4j.auth.basic(process.env.NEO4J_USER ?? 'neo4j', process.env.NEO4J_PASSWORD ?? 'trellis-test-pw'),
    {
      disableLosslessIntegers: true,
      logging: { level: 'error', logger: () => {} },
    },
  );
}

/** The server's JVM settings, or null when it does not answer (e.g. no `dbms.queryJmx` rights). */
export async function neo4jServerInfo(uri: string): Promise<Neo4jServerInfo | null> {
  const driver = connect(uri);
  const session = driver.session();
  try {
    const runtime = await session.run(
      "CALL dbms.queryJmx('java.lang:type=Runtime') YIELD attributes RETURN attributes.InputArguments.value AS args, attributes.VmVersion.value AS vm",
    );
    const args = (runtime.records[0]?.get('args') as string[] | undefined) ?? [];
    const settings = await session.run(
      "SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' RETURN value",
    );
    const jvm = args.filter((arg) => !arg.startsWith('--add-opens')).join(' ');
    return {
      jvm,
      jit: args.includes('-XX:TieredStopAtLevel=1') ? 'C1 only' : 'C2 on',
      pageCache: String(settings.records[0]?.get('value') ?? 'unknown'),
      vm: String(runtime.records[0]?.get('vm') ?? 'unknown'),
    };
  } catch {
    return null;
  } finally {
    await session.close();
    await driver.close();
  }
}

/** Reads the server's process CPU time (ms) between calls; `null` readings when JMX is not available. */
export function neo4jCpuClock(uri: string): { now(): Promise<number | null>; close(): Promise<void> } {
  const driver = connect(uri);
  return {
    async now() {
      const session = driver.session();
      try {
        const result = await session.run(
          "CALL dbms.queryJmx('java.lang:type=OperatingSystem') YIELD attributes RETURN attributes.ProcessCpuTime.value AS ns",
        );
        return Number(result.records[0]?.get('ns')) / 1e6;
      } catch {
        return null;
      } finally {
        await session.close();
      }
    },
    close: () => driver.close(),
  };
}

/** The load averages now, as `1 / 5 / 15`. */
export function loadNow(): string {
  return loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ');
}

export function isBusy(): boolean {
  return (loadavg()[0] ?? 0) >= BUSY_LOAD;
}

const harness = fileURLToPath(new URL('../../../tools/neo4j-harness/', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/**
 * Starts a harness of its own with the production JVM profile (`NEO4J_PROFILE=production`,
 * tools/neo4j-harness/README.md) on a free port and a run dir of its own; `stop` ends it.
 */
export async function startOwnHarness(): Promise<{ uri: string; stop(): void }> {
  const runDir = mkdtempSync(join(tmpdir(), 'trellis-bench-neo4j-'));
  const env = {
    ...process.env,
    NEO4J_PROFILE: process.env.NEO4J_PROFILE ?? 'production',
    NEO4J_RUN_DIR: runDir,
    NEO4J_BOLT_PORT: String(await freePort()),
  };
  const stop = () => {
    try {
      execFileSync('bash', [join(harness, 'stop.sh')], { env, stdio: 'inherit' });
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  };
  try {
    const uri = execFileSync('bash', [join(harness, 'start.sh')], {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    return { uri, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
