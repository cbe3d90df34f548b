import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What a {@link startResponsivenessProbe} saw. */
export interface ResponsivenessReport {
  /** the longest event-loop block seen, in ms (perf_hooks monitorEventLoopDelay, 10 ms resolution) */
  maxBlockMs: number;
  /**
   * the most CPU time the process used between two turns of a 5 ms timer, in ms: how long the
   * loop was held by work, whatever else the machine runs (a starved process shows long wall
   * blocks but not long CPU blocks). An upper bound: other threads (GC helpers) count too.
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
  let lastCpu = process.cpuUsage();
  const tick = () => {
    const cpu = process.cpuUsage(lastCpu);
    lastCpu = process.cpuUsage();
    maxCpuBlock = Math.max(maxCpuBlock, (cpu.user + cpu.system) / 1000);
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
