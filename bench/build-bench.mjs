// `pnpm bench` (the bench package): the Trellis builder against Eleventy 3.1.7 on the same
// generated sites, whole process and side by side; writes its section of docs/benchmarks.md.
// Every run is bounded in time. Environment: BENCH_ITEMS (posts, 10,000), BENCH_SHAPES
// (`bench,deep`), BENCH_REPEAT (alternating pairs, 3), BENCH_ELEVENTY_DEFAULT=0 (skip Eleventy
// as installed), BENCH_SKIP_LARGE=1 (skip the 100k build), BENCH_DIRECTORY=1 (directory
// target), BENCH_DOC=0 (print the section, leave docs/benchmarks.md alone). BENCH_CURVE=<sizes>
// runs the memory curve instead (BENCH_CURVE_MAX_RSS_MB stops a build above that RSS: a shared machine).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareSites } from './compare-output.mjs';
import { trellisDeepSnapshot, writeEleventyDeepProject } from './generate-deep-site.mjs';
import { generateContent, trellisSnapshot, writeEleventyProject } from './generate-site.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'out');
mkdirSync(out, { recursive: true });
const N = Number(process.env.BENCH_ITEMS ?? 10_000);
const LARGE = Number(process.env.BENCH_LARGE_ITEMS ?? 100_000);
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

/**
 * Output folders: every timed run writes into a folder of its own, and nothing is deleted until
 * the last timed run is over (`clearTrash` at the end). On this machine's ext4 (no journal) a
 * file created within a minute or more of many deletions pays for them: the inode allocator
 * skips every recently freed inode, reading its inode table block each time
 * (`recently_deleted` under `__ext4_new_inode`, seen with `perf record -a`; "recently" is 60 s
 * after the deletion, 360 s while the inode table block is not written back). Measured
 * 2026-11-27: 10,000 `mkdir`s took 0.33 s of system time in a fresh folder and 4.6-6.0 s next
 * to folders deleted minutes before; the same 100,000-item `cms-build` 32.0 s (10.2 s system)
 * and, a minute later next to deleted folders, 57.4 s (38.6 s system). Deleting one run's
 * 10,000 pages right before the next made each run's system time grow by seconds (the same
 * `cms-build` took 1.4, 4.3, 7.4, 10.7 s of system time in four runs a few seconds apart), for
 * both builders alike. An old folder of the same name is renamed into `trash/` (no inode freed).
 */
const trashDir = join(out, 'trash');
let trashed = 0;
function moveToTrash(path) {
  if (!existsSync(path)) return;
  mkdirSync(trashDir, { recursive: true });
  renameSync(path, join(trashDir, `${basename(path)}-${process.pid}-${trashed++}`));
}
function freshDir(name) {
  const dir = join(out, 'runs', name);
  moveToTrash(dir);
  mkdirSync(join(out, 'runs'), { recursive: true });
  return dir;
}
function clearTrash() {
  // BENCH_KEEP_TRASH=1: keep it for now (another bench follows at once; delete bench/out/trash later)
  if (process.env.BENCH_KEEP_TRASH !== '1') rmSync(trashDir, { recursive: true, force: true });
}
// Outputs of earlier runs, out of the way before the first timed run (deleted after the last).
moveToTrash(join(out, 'runs'));

function child(script, args, { timeoutMs, heapMb } = {}) {
  const execArgv = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
  const started = performance.now();
  const run = spawnSync(process.execPath, [...execArgv, join(here, script), ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallMs = Math.round(performance.now() - started);
  if (run.status !== 0) {
    const reason =
      run.error?.code === 'ETIMEDOUT' || run.signal === 'SIGKILL'
        ? `timed out after ${timeoutMs} ms`
        : `exit ${run.status}`;
    return {
      ok: false,
      wallMs,
      timedOut: reason.startsWith('timed out'),
      error: `${reason}: ${(run.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`,
    };
  }
  const line = run.stdout.trim().split('\n').pop();
  return { ok: true, wallMs, ...JSON.parse(line) };
}

/**
 * The memory curve (`BENCH_CURVE=10000,100000,1000000`): for each size, the bench site as a snapshot
 * file (written once, streamed, kept in bench/out), then one full `cms-build --snapshot` of it in a
 * child process: wall time, CPU time and the whole process's peak RSS (main thread and render
 * workers). Writes its own section of docs/benchmarks.md; the rest of the bench does not run.
 */
/** RSS in MB of a process and its descendants (Linux /proc; 0 when it is gone). */
function treeRssMb(pid) {
  let kb = 0;
  try {
    kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    for (const child of children ? children.split(' ') : []) kb += treeRssMb(Number(child)) * 1024;
  } catch {
    // gone meanwhile
  }
  return kb / 1024;
}

/**
 * Runs a command like spawnSync (stderr collected), sampling its RSS (with its child
 * processes: `cms-build` may start itself again with a larger heap) every 2 s: the peak, and a
 * SIGKILL above `maxRssMb` (when given).
 */
function runWatched(args, { timeoutMs, maxRssMb }) {
  return new Promise((resolve) => {
    const run = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peakMb = 0;
    let stopped = null;
    run.stderr.setEncoding('utf8').on('data', (text) => {
      stderr += text;
      if (stderr.length > 64 * 1024 * 1024) stderr = stderr.slice(-32 * 1024 * 1024);
    });
    const sampler = setInterval(() => {
      const mb = treeRssMb(run.pid);
      peakMb = Math.max(peakMb, mb);
      if (maxRssMb && mb > maxRssMb && !stopped) {
        stopped = `stopped by the bench above ${maxRssMb} MB RSS (${Math.round(mb)} MB)`;
        log(stopped);
        for (const line of readFileSync(`/proc/${run.pid}/task/${run.pid}/children`, 'utf8')
          .trim()
          .split(' '))
          if (line) process.kill(Number(line), 'SIGKILL');
        run.kill('SIGKILL');
      }
    }, 2000);
    const timer = setTimeout(() => {
      stopped = `timed out after ${timeoutMs} ms`;
      run.kill('SIGKILL');
    }, timeoutMs);
    run.on('close', (status) => {
      clearInterval(sampler);
      clearTimeout(timer);
      resolve({ status: stopped ? null : status, stderr, sampledPeakMb: Math.round(peakMb), stopped });
    });
  });
}

async function runCurve(sizes) {
  const maxRssMb = process.env.BENCH_CURVE_MAX_RSS_MB ? Number(process.env.BENCH_CURVE_MAX_RSS_MB) : null;
  const cli = join(here, 'node_modules', '@trelliscms', 'builder', 'dist', 'cli.js');
  const rows = [];
  for (const n of sizes) {
    const path = join(out, `curve-site-${n}.json`);
    if (!existsSync(path) || process.env.BENCH_CURVE_REGENERATE === '1') {
      log(`curve: writing the ${n}-item snapshot`);
      const made = spawnSync(
        process.execPath,
        ['--max-old-space-size=16384', join(here, 'write-snapshot.mjs'), String(n), path],
        { stdio: 'inherit', timeout: 3_600_000 },
      );
      if (made.status !== 0) throw new Error(`could not write ${path}`);
    }
    const outDir = freshDir(`curve-out-${n}`);
    const loadBefore = loadavg()[0].toFixed(1);
    log(`curve: cms-build, ${n} items (load ${loadBefore})`);
    const started = performance.now();
    const run = await runWatched(
      ['-r', join(here, 'rss-report.cjs'), cli, '--snapshot', path, '--out', outDir, '--mode', 'full'],
      { timeoutMs: 4 * 3_600_000, maxRssMb },
    );
    const wallMs = Math.round(performance.now() - started);
    const lines = (run.stderr ?? '').trim().split('\n');
    // one line per process: `cms-build` may start itself again with a larger heap (the preload
    // goes with it), so the peak is the largest process's and the CPU is theirs together
    const reports = lines.filter((line) => line.startsWith('{"benchRss"')).map((line) => JSON.parse(line));
    const rss =
      reports.length === 0
        ? null
        : {
            maxRssMb: Math.max(...reports.map((r) => r.maxRssMb)),
            cpuMs: reports.reduce((sum, r) => sum + r.cpuMs, 0),
            sysMs: reports.every((r) => typeof r.sysMs === 'number')
              ? reports.reduce((sum, r) => sum + r.sysMs, 0)
              : null,
          };
    const summary = lines.find((line) => /^(ok|failed): full build/.test(line)) ?? '';
    const built = /(\d+) rendered, .* (\d+) ms$/.exec(summary);
    const row = {
      items: n,
      snapshotMb: Math.round(statSync(path).size / 1e6),
      ok: run.status === 0,
      pages: built ? Number(built[1]) : null,
      buildMs: built ? Number(built[2]) : null,
      wallMs,
      cpuMs: rss?.cpuMs ?? null,
      sysMs: rss?.sysMs ?? null,
      maxRssMb: run.stopped || !rss ? Math.max(rss?.maxRssMb ?? 0, run.sampledPeakMb) || null : rss.maxRssMb,
      load: `${loadBefore}–${loadavg()[0].toFixed(1)}`,
      error:
        run.status === 0
          ? null
          : (run.stopped ??
            lines
              .filter((line) => !line.startsWith('{"benchRss"'))
              .slice(-3)
              .join('; ')
              .replaceAll('|', '/')),
    };
    log(JSON.stringify(row));
    rows.push(row);
  }
  const fmt = (v, unit = '') =>
    v === null || v === undefined ? 'n/a' : `${v.toLocaleString('en-US')}${unit}`;
  const goal = (n, limitMb, limitMs) => {
    const row = rows.find((r) => r.items === n);
    if (!row) return 'not measured in this run';
    if (!row.ok) return `not met (the build failed: ${row.error})`;
    const memory = row.maxRssMb < limitMb;
    const time = limitMs === undefined || row.wallMs < limitMs;
    return `${fmt(row.maxRssMb, ' MB')}${limitMs === undefined ? '' : `, ${fmt(row.wallMs, ' ms')}`} — ${memory && time ? 'met' : 'not met'}`;
  };
  const million = rows.find((r) => r.items === 1_000_000);
  const section = `<!-- bench:build-curve:start -->
## Build memory curve

Measured by \`BENCH_CURVE=${sizes.join(',')} pnpm bench\` (\`runCurve\` in \`bench/build-bench.mjs\`), ${new Date().toISOString().slice(0, 10)},
Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM; the load average
before–after each run is in the table (the machine was shared: figures under load are upper bounds).
The bench site of each size (as above: posts with markdown bodies, tags, authors, related posts, a paginated archive) is
written as a snapshot file, then built by one \`cms-build --snapshot <file> --out <dir> --mode full\` child process (2 render
workers): wall time of the whole process (start-up, reading the snapshot, planning, rendering, writing, the search index
and sitemap), its CPU time (all threads; in brackets the kernel's part of it, mostly the page writer's \`mkdir\`s and file
creations), and its peak RSS (\`maxRSS\`: main thread and worker threads are one process). The kernel's part depends on
the file system's recent history, not on the build: on this machine's ext4 a folder or file made in a block group where
many inodes were freed up to six minutes before costs up to 20 times more (ext4 without a journal skips an inode freed
less than 60 s ago, or 360 s while its inode table block is unwritten: see the comment on \`trashDir\` in the bench), so
these runs are timed with no deletion just before them (earlier outputs are moved aside and deleted after the last run).

| items | snapshot file | pages | whole process, wall | build (as cms-build reports it) | CPU, all threads (kernel) | peak RSS | load average |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${rows.map((r) => `| ${fmt(r.items)} | ${fmt(r.snapshotMb, ' MB')} | ${fmt(r.pages)} | ${r.ok ? fmt(r.wallMs, ' ms') : `failed: ${r.error}`} | ${fmt(r.buildMs, ' ms')} | ${fmt(r.cpuMs, ' ms')}${r.sysMs === null || r.sysMs === undefined ? '' : ` (${fmt(r.sysMs, ' ms')})`} | ${fmt(r.maxRssMb, ' MB')} | ${r.load} |`).join('\n')}

Goals (issue 20, item 2):

- peak under 400 MB at 10,000 items: ${goal(10_000, 400)}
- peak under 1.5 GB at 100,000 items, in under 40 s: ${goal(100_000, 1536, 40_000)}
- a 1,000,000-item site builds on this machine: ${million ? (million.ok ? `met (${fmt(million.wallMs, ' ms')}, peak ${fmt(million.maxRssMb, ' MB')})` : `not met (${million.error})`) : 'not measured in this run'}
<!-- bench:build-curve:end -->`;
  writeDocSection('build-curve', section);
}

/** Puts `section` (which carries its own `<!-- bench:<name>:start/end -->` markers) in docs/benchmarks.md, in place of the old one. */
function writeDocSection(name, section) {
  const docPath = join(here, '..', 'docs', 'benchmarks.md');
  const doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n';
  const startMark = `<!-- bench:${name}:start -->`;
  const endMark = `<!-- bench:${name}:end -->`;
  const start = doc.indexOf(startMark);
  const end = doc.indexOf(endMark);
  writeFileSync(
    docPath,
    start !== -1 && end !== -1
      ? `${doc.slice(0, start)}${section}${doc.slice(end + endMark.length)}`
      : `${doc.trimEnd()}\n\n${section}\n`,
  );
  log(`wrote ${docPath}`);
  process.stdout.write(`${section}\n`);
}

if (process.env.BENCH_CURVE) {
  await runCurve(process.env.BENCH_CURVE.split(',').map((size) => Number(size.trim())));
  clearTrash();
  process.exit(0);
}

/** CPU time (ms) of this process's waited-for children (Linux /proc/self/stat cutime + cstime). */
function childCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 16 and 17 of stat(5), in clock ticks (100 a second on Linux)
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

const rssFile = join(out, 'child-rss.txt');
/**
 * One whole process, timed from spawn to exit: node's start-up, module loading, reading the
 * input and the build. CPU time is the child's (all its threads); peak RSS comes from
 * `report-rss.mjs`, preloaded.
 */
function wholeProcess(args, { timeoutMs, execArgv = [] }) {
  rmSync(rssFile, { force: true });
  const cpu0 = childCpuMs();
  const started = performance.now();
  const run = spawnSync(process.execPath, [...execArgv, '--import', join(here, 'report-rss.mjs'), ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, BENCH_RSS_FILE: rssFile },
  });
  const wallMs = Math.round(performance.now() - started);
  const cpu1 = childCpuMs();
  if (run.status !== 0) {
    const reason =
      run.error?.code === 'ETIMEDOUT' || run.signal === 'SIGKILL'
        ? `timed out after ${timeoutMs} ms`
        : `exit ${run.status}`;
    return {
      ok: false,
      wallMs,
      timedOut: reason.startsWith('timed out'),
      error: `${reason}: ${(run.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`,
    };
  }
  let maxRssMb = null;
  try {
    maxRssMb = Number(readFileSync(rssFile, 'utf8'));
  } catch {}
  return { ok: true, wallMs, cpuMs: cpu0 === null ? null : cpu1 - cpu0, maxRssMb, stdout: run.stdout };
}

const median = (values) => {
  const sorted = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
};
const span = (values) => {
  const sorted = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  return sorted.length > 1
    ? `${sorted[0].toLocaleString('en-US')}–${sorted.at(-1).toLocaleString('en-US')}`
    : null;
};
const cmsBuild = join(here, '..', 'packages', 'builder', 'dist', 'cli.js');
const SHAPES = (process.env.BENCH_SHAPES ?? 'bench,deep').split(',').filter(Boolean);
const REPEAT = Math.max(1, Number(process.env.BENCH_REPEAT ?? 3));

/**
 * One site shape, whole process and side by side: `cms-build --mode full` from the snapshot
 * file and Eleventy (liquidjs cache on) in alternating pairs (BENCH_REPEAT of them), Eleventy as
 * installed once (it takes minutes); then the two outputs compared page by page.
 */
function runShape(shape) {
  log(`shape ${shape}: generating ${N} posts`);
  const content = generateContent(N);
  const snapshot = shape === 'deep' ? trellisDeepSnapshot(content) : trellisSnapshot(content);
  const writeProject = shape === 'deep' ? writeEleventyDeepProject : writeEleventyProject;
  const path = join(out, `${shape}-${N}.json`);
  writeFileSync(path, JSON.stringify(snapshot));
  const cachedDir = join(out, `eleventy-${shape}`);
  const defaultDir = join(out, `eleventy-${shape}-default`);
  // (the projects of an earlier run moved aside, not deleted: see freshDir)
  moveToTrash(cachedDir);
  moveToTrash(defaultDir);
  writeProject(content, cachedDir);
  writeProject(content, defaultDir, { liquidCache: false });
  let trellisOut = null;
  let eleventyOut = null;
  const trellisRuns = [];
  const eleventyRuns = [];
  const loads = [];
  for (let i = 0; i < REPEAT; i++) {
    loads.push(loadavg()[0]);
    trellisOut = freshDir(`trellis-${shape}-${i + 1}`);
    const t = wholeProcess(
      [cmsBuild, '--snapshot', path, '--out', trellisOut, '--mode', 'full', '--env', 'prod'],
      {
        timeoutMs: 600_000,
      },
    );
    log(`${shape} cms-build ${i + 1}/${REPEAT}: ${JSON.stringify({ ...t, stdout: undefined })}`);
    trellisRuns.push(t);
    eleventyOut = freshDir(`eleventy-${shape}-${i + 1}`);
    const e = wholeProcess([join(here, 'run-eleventy.mjs'), cachedDir, eleventyOut], {
      timeoutMs: 600_000,
      execArgv: ['--max-old-space-size=8192'],
    });
    log(`${shape} eleventy (cache on) ${i + 1}/${REPEAT}: ${JSON.stringify({ ...e, stdout: undefined })}`);
    eleventyRuns.push(e);
  }
  let eleventyDefault = { ok: false, error: 'not run (BENCH_ELEVENTY_DEFAULT=0)' };
  if (process.env.BENCH_ELEVENTY_DEFAULT !== '0') {
    eleventyDefault = wholeProcess(
      [join(here, 'run-eleventy.mjs'), defaultDir, freshDir(`eleventy-${shape}-default`)],
      {
        // minutes on the bench site, far longer on the deep shape (every include parsed again):
        // stopped after BENCH_ELEVENTY_DEFAULT_TIMEOUT_S, a stopped run is still a lower bound
        timeoutMs: Number(process.env.BENCH_ELEVENTY_DEFAULT_TIMEOUT_S ?? 1800) * 1000,
        execArgv: ['--max-old-space-size=8192'],
      },
    );
    log(`${shape} eleventy (as installed): ${JSON.stringify({ ...eleventyDefault, stdout: undefined })}`);
  }
  const same = compareSites(trellisOut, eleventyOut);
  log(`${shape} output compared: ${JSON.stringify(same)}`);
  const summary = (runs) => {
    const ok = runs.filter((r) => r.ok);
    return ok.length === 0
      ? { ok: false, error: runs[0]?.error ?? 'not run' }
      : {
          ok: true,
          wallMs: median(ok.map((r) => r.wallMs)),
          wallSpan: span(ok.map((r) => r.wallMs)),
          cpuMs: median(ok.map((r) => r.cpuMs)),
          maxRssMb: median(ok.map((r) => r.maxRssMb)),
          runs: ok.length,
        };
  };
  const pages = eleventyRuns.find((r) => r.ok)?.stdout
    ? JSON.parse(
        eleventyRuns
          .find((r) => r.ok)
          .stdout.trim()
          .split('\n')
          .pop(),
      ).pages
    : null;
  return {
    shape,
    trellis: summary(trellisRuns),
    eleventy: summary(eleventyRuns),
    eleventyDefault: eleventyDefault.ok ? summary([eleventyDefault]) : eleventyDefault,
    same,
    pages,
    load: `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  };
}

/** CPU counters from /proc/stat (Linux): how much time the hypervisor took (steal) during the run. */
function cpuTicks() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return fields.length >= 8 ? { steal: fields[7], total: fields.reduce((sum, n) => sum + n, 0) } : null;
  } catch {
    return null;
  }
}
const ticksStart = cpuTicks();
const loadStart = loadavg()[0].toFixed(1);

const shapes = SHAPES.map(runShape);

// The bench shape in one running process, as the server builds (`build()` with a warm render
// pool, the snapshot already parsed), then one-item edits rebuilt incrementally.
log(`generating ${N} posts for the in-process builds`);
const content = generateContent(N);
const snapshotPath = join(out, `site-${N}.json`);
writeFileSync(snapshotPath, JSON.stringify(trellisSnapshot(content)));
log('trellis in-process: full + incremental (folder target)');
const trellis = child('run-trellis.mjs', [snapshotPath, freshDir('trellis-folder'), 'folder'], {
  timeoutMs: 600_000,
});
log(JSON.stringify(trellis));
let directory = { ok: false, error: 'not run (BENCH_DIRECTORY=1 runs it)' };
if (process.env.BENCH_DIRECTORY === '1') {
  log('trellis: full + incremental (directory target: versions + symlink)');
  directory = child('run-trellis.mjs', [snapshotPath, freshDir('trellis-directory'), 'directory'], {
    timeoutMs: 300_000,
  });
  log(JSON.stringify(directory));
}

let large = { ok: false, error: 'not run in this run (BENCH_SKIP_LARGE=1)' };
if (process.env.BENCH_SKIP_LARGE !== '1') {
  log(`generating ${LARGE} posts`);
  const largePath = join(out, `site-${LARGE}.json`);
  writeFileSync(largePath, JSON.stringify(trellisSnapshot(generateContent(LARGE))));
  log('trellis: 100k full build');
  large = child('run-trellis.mjs', [largePath, freshDir('trellis-large'), 'large'], {
    timeoutMs: 900_000,
  });
  log(JSON.stringify(large));
}

const rate = (r) => (r.ok && r.pages ? Math.round(r.pages / (r.fullMs / 1000)) : null);
const fmt = (v, unit = '') => (v === null || v === undefined ? 'n/a' : `${v.toLocaleString('en-US')}${unit}`);
const times = (a, b, key) => (a.ok && b.ok && a[key] && b[key] ? b[key] / a[key] : null);
/** Trellis against a run of Eleventy stopped by its timeout: at least this many times faster. */
const atLeast = (a, b) => (a.ok && !b.ok && b.timedOut && a.wallMs && b.wallMs ? b.wallMs / a.wallMs : null);
const defaultRatio = (s) => {
  const exact = times(s.trellis, s.eleventyDefault, 'wallMs');
  if (exact !== null) return { value: exact, text: ratioText(exact) };
  const bound = atLeast(s.trellis, s.eleventyDefault);
  return bound === null
    ? { value: null, text: 'n/a' }
    : {
        value: bound,
        text: `> ${bound.toFixed(1)}× (stopped after ${fmt(s.eleventyDefault.wallMs, ' ms')})`,
      };
};
const incShare = trellis.ok ? ((trellis.incrementalMs / trellis.fullMs) * 100).toFixed(2) : null;
const node = process.version;
const cpu = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`;
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const ticksEnd = cpuTicks();
const steal =
  ticksStart && ticksEnd && ticksEnd.total > ticksStart.total
    ? `${(((ticksEnd.steal - ticksStart.steal) / (ticksEnd.total - ticksStart.total)) * 100).toFixed(1)} %`
    : 'unknown';
const busy = Number(loadStart) >= 1.5 ? ' (busy machine: other work was running)' : '';
const load = `load average ${loadStart} at the start and ${loadavg()[0].toFixed(1)} at the end on ${cpus().length} cores${busy}, CPU time taken by the hypervisor (steal) during the run ${steal}`;
const mark = (ok) => (ok ? 'met' : 'not met');
const cell = (r, key, unit) => (r.ok ? fmt(r[key], unit) : r.error);
const wallCell = (r) => (r.ok ? `${fmt(r.wallMs, ' ms')}${r.wallSpan ? ` (${r.wallSpan})` : ''}` : r.error);
const ratioText = (value) => (value === null ? 'n/a' : `${value.toFixed(1)}×`);
const shapeName = { bench: 'bench site', deep: 'deep shape' };
const shapeRows = shapes
  .map((s) => {
    const vsCached = times(s.trellis, s.eleventy, 'wallMs');
    const vsDefault = defaultRatio(s);
    const cpuCached = times(s.trellis, s.eleventy, 'cpuMs');
    return `| ${shapeName[s.shape] ?? s.shape} (${fmt(s.pages)} pages; same URLs: ${s.same.sameUrls ? 'yes' : 'NO'}, same page text: ${s.same.sameText ? 'yes' : `NO (${s.same.differing} differ)`}; load ${s.load}) | ${wallCell(s.trellis)} | ${cell(s.trellis, 'cpuMs', ' ms')} | ${cell(s.trellis, 'maxRssMb', ' MB')} | ${wallCell(s.eleventy)} | ${cell(s.eleventy, 'cpuMs', ' ms')} | ${wallCell(s.eleventyDefault)} | ${cell(s.eleventyDefault, 'cpuMs', ' ms')} | ${ratioText(vsCached)} (CPU ${ratioText(cpuCached)}) | ${vsDefault.text} |`;
  })
  .join('\n');
const shapeGoals = shapes
  .map((s) => {
    const vsCached = times(s.trellis, s.eleventy, 'wallMs');
    const vsDefault = defaultRatio(s);
    return `- ${shapeName[s.shape] ?? s.shape}: ≥ 3× Eleventy with the template cache on by wall time: ${ratioText(vsCached)} — ${mark(vsCached !== null && vsCached >= 3)}; ≥ 6× Eleventy as installed: ${vsDefault.text} — ${mark(vsDefault.value !== null && vsDefault.value >= 6)}; output equal (URLs and page text): ${mark(s.same.sameUrls && s.same.sameText)}`;
  })
  .join('\n');
const benchShape = shapes.find((s) => s.shape === 'bench');
const inProcessShare =
  benchShape?.trellis.ok && trellis.ok
    ? (benchShape.trellis.wallMs / (trellis.fullMs + trellis.loadMs) - 1) * 100
    : null;
const section = `<!-- bench:build:start -->
## Static build

Measured by \`pnpm bench\` (\`bench/build-bench.mjs\`), ${date} UTC, Node ${node}, ${cpu}, ${load}.

### Whole process, side by side

Each build is one whole process, timed from spawn to exit (node's start-up, loading modules, reading the
input, building, writing): \`cms-build --snapshot <file> --mode full --env prod --out <dir>\` into an empty
folder, and Eleventy 3.1.7 through its programmatic API (\`bench/run-eleventy.mjs\`, quiet mode, no plugins,
\`--max-old-space-size=8192\`) with liquidjs's template cache on (\`setLiquidOptions({ cache: true })\`) and as
installed (cache off, run once: it takes minutes). Trellis and Eleventy with the cache ran in ${REPEAT} alternating
pair(s); wall is the median (range), CPU the child's user + system time of all its threads (from
\`/proc/self/stat\`'s cutime/cstime), steadier than wall time on a busy machine. After the runs each
shape's two outputs are compared page by page (\`bench/compare-output.mjs\`: the same \`.html\` URLs and the same
text once scripts and tags are removed).

- **bench site** (\`bench/generate-site.mjs\`): ${N.toLocaleString('en-US')} posts (markdown bodies, 1–3 of 50 tags, an author, 3 related posts),
  50 tag pages (up to 50 posts each), a home page (10 latest), the paginated archive (${Math.ceil(N / 20)} pages of 20); one layout and a card partial.
- **deep shape** (\`bench/generate-deep-site.mjs\`, the same content): a three-level layout chain (post → article → section →
  base), header, footer and a sidebar of the 10 latest posts on every page, byline, tag and card partials (a card renders a
  link and a date partial), author pages listing all of an author's posts (about ${Math.round(N / 20).toLocaleString('en-US')} each), tag pages of up to
  200 posts and an archive of 50 a page.

| shape | Trellis wall | Trellis CPU | Trellis peak RSS | Eleventy (cache on) wall | Eleventy (cache on) CPU | Eleventy as installed wall | Eleventy as installed CPU | Trellis faster than Eleventy (cache on) | Trellis faster than Eleventy as installed |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${shapeRows}

Goals (issue 20, item 1), measured side by side in this run:

${shapeGoals}
- the same build in a running process (\`build()\` with a warm pool of 2 render workers, the snapshot already parsed, as the
  server builds; \`POST /api/build\` itself is not run by this bench) within 20 % of \`cms-build\`: ${trellis.ok ? `${fmt(trellis.fullMs, ' ms')} (+ ${fmt(trellis.loadMs, ' ms')} to parse the snapshot) against ${benchShape?.trellis.ok ? fmt(benchShape.trellis.wallMs, ' ms') : 'n/a'} for the whole \`cms-build\` process${inProcessShare === null ? '' : `: the whole \`cms-build\` process took ${Math.abs(inProcessShare).toFixed(0)} % ${inProcessShare >= 0 ? 'longer' : 'less'} — ${mark(inProcessShare <= 20)}`}` : `n/a (${trellis.error})`}

### In one process, and incremental

\`bench/run-trellis.mjs\` builds the bench site in one process (the snapshot parsed first: ${fmt(trellis.loadMs, ' ms')}), then
rebuilds one-item edits incrementally with the same warm workers. Trellis also writes \`sitemap.xml\` and the MiniSearch
index; Eleventy reads precomputed data (tags, related posts) where Trellis follows edges with \`{% traverse %}\`.
Trellis's \`markdown\` filter gives the same bytes as marked + sanitize-html, but skips sanitize-html's second parse when
marked's output is plain markup sanitize-html keeps unchanged (\`packages/builder/src/liquid/plain-html.ts\`).

| | Trellis builder |
| --- | ---: |
| full build, ${N.toLocaleString('en-US')} items (${fmt(trellis.pages)} pages) | ${cell(trellis, 'fullMs', ' ms')} |
| pages/s | ${fmt(rate(trellis))} |
| CPU time of the full build, all threads | ${cell(trellis, 'fullCpuMs', ' ms')} |
| peak memory (maxRSS, after the incremental builds too) | ${cell(trellis, 'maxRssMb', ' MB')} |
| incremental one-item rebuild (warm, folder target) | ${fmt(trellis.incrementalMs, ' ms')} (${fmt(trellis.incrementalRendered)} pages re-rendered, ${fmt(trellis.incrementalUploaded)} files changed) |
| one post's body edited, incremental (warm, folder target; the post most listed in related blocks, which show its title) | ${fmt(trellis.bodyEditMs, ' ms')} (${fmt(trellis.bodyEditRendered)} pages re-rendered; the post is in ${fmt(trellis.bodyEditListings)} related blocks) |
| incremental one-item rebuild (directory target: new version folder, unchanged files hard-linked, pointer swap) | ${directory.ok ? fmt(directory.incrementalMs, ' ms') : directory.error} |
${directorySteadyRow(directory)}
| full build, ${LARGE.toLocaleString('en-US')} items | ${large.ok ? `${fmt(large.fullMs, ' ms')}, ${fmt(large.pages)} pages, ${fmt(rate(large))} pages/s, peak ${fmt(large.maxRssMb, ' MB')}` : large.error} |

- incremental one-item rebuild < 2 % of the full build: ${incShare ? `${incShare} % — ${mark(Number(incShare) < 2)}` : 'n/a'}
- a ${LARGE.toLocaleString('en-US')}-item site builds: ${large.ok ? 'met' : process.env.BENCH_SKIP_LARGE === '1' ? 'not run in this run (BENCH_SKIP_LARGE=1; see the build memory curve)' : `not met (${large.error})`}
<!-- bench:build:end -->`;

clearTrash();
if (process.env.BENCH_DOC === '0') {
  process.stdout.write(`${section}\n`);
  process.exit(0);
}
writeDocSection('build', section);

/**
 * The directory target's steady-state row (BENCH_DIRECTORY=1): body edits, each build followed by
 * a prune, so each build recycles the version the last prune gave up (bench/run-trellis.mjs).
 */
function directorySteadyRow(directory) {
  const label = `one post's body edited, steady state (directory target pruned to ${directory.steadyKeep ?? 2} versions after each build: the pruned version's folder recycled, only changed files written, pointer swap)`;
  if (!directory.ok || directory.steadyEditMs === undefined)
    return `| ${label} | ${directory.error ?? 'not measured'} |`;
  const share = ((100 * directory.steadyEditMs) / directory.fullMs).toFixed(2);
  const cpuShare = ((100 * directory.steadyEditCpuMs) / directory.fullCpuMs).toFixed(2);
  return `| ${label} | ${fmt(directory.steadyEditMs, ' ms')} median of ${directory.steadyRuns.length} (deploy step ${fmt(directory.steadyDeployMs, ' ms')}, CPU ${fmt(directory.steadyEditCpuMs, ' ms')}; prune after it ${fmt(directory.steadyPruneMs, ' ms')}): ${share} % of this target's full build (${fmt(directory.fullMs, ' ms')}), ${cpuShare} % by CPU |`;
}
