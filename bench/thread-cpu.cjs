// Preloaded into a `cms-build` process (`node -r bench/thread-cpu.cjs packages/builder/dist/cli.js ...`):
// prints, when it exits, the CPU time of each of its threads (Linux /proc/self/task/*/stat, user +
// system, in ms) as one JSON line on stderr. A `--cpu-prof` profile shows the JavaScript threads only
// (main thread, render workers); this also shows V8's platform threads (concurrent GC, compilers)
// and libuv's thread pool (the file system calls of the page writes), sampled every 200 ms so
// threads that end early are counted.
const { readdirSync, readFileSync } = require('node:fs');
const { isMainThread } = require('node:worker_threads');

if (isMainThread) {
  const started = performance.now();
  const threads = new Map();
  const sample = () => {
    let tids = [];
    try {
      tids = readdirSync('/proc/self/task');
    } catch {
      return;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // utime and stime (fields 14 and 15 of stat(5)), in clock ticks of 10 ms
        threads.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
      } catch {}
    }
  };
  const timer = setInterval(sample, 200);
  timer.unref();
  process.on('exit', () => {
    sample();
    const main = threads.get(String(process.pid)) ?? 0;
    const others = [...threads].filter(([tid]) => tid !== String(process.pid)).map(([, ms]) => ms);
    process.stderr.write(
      `${JSON.stringify({
        threadCpu: true,
        wallMs: Math.round(performance.now() - started),
        totalMs: main + others.reduce((sum, ms) => sum + ms, 0),
        mainMs: main,
        // in the order the threads started: V8's platform threads, libuv's pool, the render workers
        otherMs: others,
        load: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
      })}\n`,
    );
  });
}
