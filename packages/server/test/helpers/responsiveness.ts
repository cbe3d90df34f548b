import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * CPU time of this (the main) thread in ms, where the system tells it apart from the process's
 * other threads (Linux: `/proc/self/task/<pid>/stat`, clock ticks of 10 ms; the main thread's id
 * is the process id); elsewhere the whole process's (`process.cpuUsage`: GC helpers and libuv's
 * threads count too, so an upper bound).
 */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'latin1');
    // fields after the command name (which may hold spaces and parentheses): state is the 3rd
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are the 14th and 15th fields of the whole line, in USER_HZ (100 on Linux)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/** What a {@link startResponsivenessProbe} saw. */
export interface ResponsivenessReport {
  /** the longest event-loop block seen, in ms (perf_hooks monitorEventLoopDelay, 10 ms resolution) */
  maxBlockMs: number;
  /**
   * the most CPU time the main thread used between two turns of a 5 ms timer, in ms: how long
   * the loop was held by work, whatever else the machine runs (a starved process shows long wall
   * blocks but not long CPU blocks). On Linux the main thread's own time (10 ms ticks, so up to
   * 10 ms over); elsewhere the whole process's, an upper bound (GC helpers count too).
   */
  maxCpuBlockMs: number;
  /** requests sent */
  count: number;
  /** each request's latency from when it was due (a blocked loop delays the timer too), in ms */
  latencies: number[];
  /** the 99th percentile of `latencies` */
  p99Ms: number;
  /** the largest of `latencies` */
  maxMs: number;
  /** status code → how many answered it */
  statuses: Record<number, number>;
}

/**
 * Sends `request` every `intervalMs` until stopped, timing each answer from when it was due
 * (not from when a blocked event loop let it go: coordinated omission would hide the block),
 * and watches the event loop's delay meanwhile. For tests that show work leaves the API
 * responsive.
 */
export function startResponsivenessProbe(params: {
  request: () => Promise<{ statusCode: number }>;
  intervalMs?: number;
}): { stop(): Promise<ResponsivenessReport> } {
  const intervalMs = params.intervalMs ?? 10;
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let stopped = false;
  let maxCpuBlock = 0;
  let lastCpu = mainThreadCpuMs();
  const tick = () => {
    const cpu = mainThreadCpuMs();
    maxCpuBlock = Math.max(maxCpuBlock, cpu - lastCpu);
    lastCpu = cpu;
    if (!stopped) ticker = setTimeout(tick, 5);
  };
  let ticker = setTimeout(tick, 5);
  const loop = (async () => {
    let due = performance.now();
    // one request after `stop` too: when the loop was blocked till then, it shows how long
    for (;;) {
      const res = await params.request();
      latencies.push(performance.now() - due);
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (stopped) break;
      due = performance.now() + intervalMs;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      // let the histogram's own (overdue) timer record the last block before it stops
      await new Promise((resolve) => setTimeout(resolve, 30));
      histogram.disable();
      clearTimeout(ticker);
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
      return {
        maxBlockMs: Math.round(histogram.max / 1e6),
        maxCpuBlockMs: Math.round(maxCpuBlock),
        count: latencies.length,
        latencies,
        p99Ms: Math.round(at(0.99)),
        maxMs: Math.round(sorted.at(-1) ?? 0),
        statuses,
      };
    },
  };
}
