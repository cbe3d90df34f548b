// Preloaded into a `cms-build` child (`node -r ./bench/phase-log.cjs ...`): logs the build thread's memory
// (`process.memoryUsage()`, peak RSS so far) at each line cms-build prints and every 5 s, to PHASE_LOG
// (default stderr). PHASE_TTY=1 makes cms-build print its render progress (as on a terminal), logged every
// 2 s: a gap between lines is a stretch where the build thread's event loop did not run.
// PHASE_GC=1 (with node --expose-gc) collects before each line: live heap instead of heap in use.
const { isMainThread } = require('node:worker_threads');

if (isMainThread) {
  const fs = require('node:fs');
  const t0 = Date.now();
  const out = process.env.PHASE_LOG || null;
  const mb = (n) => Math.round(n / 1048576);
  const write = process.stderr.write.bind(process.stderr);
  const snap = (label) => {
    if (process.env.PHASE_GC === '1' && global.gc) global.gc();
    const m = process.memoryUsage();
    const line = `${((Date.now() - t0) / 1000).toFixed(1)}s rss=${mb(m.rss)} heap=${mb(m.heapUsed)}/${mb(m.heapTotal)} ext=${mb(m.external)} ab=${mb(m.arrayBuffers)} maxrss=${Math.round(process.resourceUsage().maxRSS / 1024)} ${label}\n`;
    if (out) fs.appendFileSync(out, line);
    else write(line);
  };
  if (process.env.PHASE_TTY === '1') process.stderr.isTTY = true;
  let lastProgress = 0;
  process.stderr.write = (chunk, ...rest) => {
    const text = String(chunk).trim();
    const progress = /^rendered (\d+)\/(\d+)/.exec(text);
    if (!progress) snap(`| ${text.slice(0, 60)}`);
    else if (progress[1] === '0' || progress[1] === progress[2] || Date.now() - lastProgress > 2000) {
      lastProgress = Date.now();
      snap(`| ${text}`);
    }
    return write(chunk, ...rest);
  };
  setInterval(() => snap('tick'), 5000).unref();
  process.on('exit', () => snap('exit'));
}
