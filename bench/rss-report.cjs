// Preloaded into a `cms-build` child by the memory curve (`BENCH_CURVE`): prints the whole process's
// peak RSS (main thread and worker threads: one process) and CPU time (all threads; `sysMs` the
// kernel's part of it) as a JSON line on stderr when it exits.
const { isMainThread } = require('node:worker_threads');

if (isMainThread) {
  process.on('exit', (code) => {
    const maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
    const cpu = process.cpuUsage();
    process.stderr.write(
      `${JSON.stringify({ benchRss: true, code, maxRssMb, cpuMs: Math.round((cpu.user + cpu.system) / 1000), sysMs: Math.round(cpu.system / 1000) })}\n`,
    );
  });
}
