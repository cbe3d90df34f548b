// `pnpm bench` (the bench package): the Trellis builder against Eleventy 3.1.7 on the same
// generated site; writes its section of docs/benchmarks.md. Every run is bounded in time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateContent, trellisSnapshot, writeEleventyProject } from './generate-site.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'out');
mkdirSync(out, { recursive: true });
const N = Number(process.env.BENCH_ITEMS ?? 10_000);
const LARGE = Number(process.env.BENCH_LARGE_ITEMS ?? 100_000);
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

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
function runCurve(sizes) {
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
    const outDir = join(out, `curve-out-${n}`);
    rmSync(outDir, { recursive: true, force: true });
    const loadBefore = loadavg()[0].toFixed(1);
    log(`curve: cms-build, ${n} items (load ${loadBefore})`);
    const started = performance.now();
    const run = spawnSync(
      process.execPath,
      ['-r', join(here, 'rss-report.cjs'), cli, '--snapshot', path, '--out', outDir, '--mode', 'full'],
      { encoding: 'utf8', timeout: 4 * 3_600_000, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 },
    );
    const wallMs = Math.round(performance.now() - started);
    const lines = (run.stderr ?? '').trim().split('\n');
    const rss = lines.map((line) => (line.startsWith('{"benchRss"') ? JSON.parse(line) : null)).find(Boolean);
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
      maxRssMb: rss?.maxRssMb ?? null,
      load: `${loadBefore}–${loadavg()[0].toFixed(1)}`,
      error: run.status === 0 ? null : lines.slice(-3).join(' | '),
    };
    log(JSON.stringify(row));
    rows.push(row);
    rmSync(outDir, { recursive: true, force: true });
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
and sitemap), its CPU time (all threads), and its peak RSS (\`maxRSS\`: main thread and worker threads are one process).

| items | snapshot file | pages | whole process, wall | build (as cms-build reports it) | CPU, all threads | peak RSS | load average |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${rows.map((r) => `| ${fmt(r.items)} | ${fmt(r.snapshotMb, ' MB')} | ${fmt(r.pages)} | ${r.ok ? fmt(r.wallMs, ' ms') : `failed: ${r.error}`} | ${fmt(r.buildMs, ' ms')} | ${fmt(r.cpuMs, ' ms')} | ${fmt(r.maxRssMb, ' MB')} | ${r.load} |`).join('\n')}

Goals (issue 20, item 2):

- peak under 400 MB at 10,000 items: ${goal(10_000, 400)}
- peak under 1.5 GB at 100,000 items, in under 40 s: ${goal(100_000, 1536, 40_000)}
- a 1,000,000-item site builds on this machine: ${million ? (million.ok ? `met (${fmt(million.wallMs, ' ms')}, peak ${fmt(million.maxRssMb, ' MB')})` : `not met (${million.error})`) : 'not measured in this run'}
<!-- bench:build-curve:end -->`;
  const docPath = join(here, '..', 'docs', 'benchmarks.md');
  let doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n';
  const start = doc.indexOf('<!-- bench:build-curve:start -->');
  const end = doc.indexOf('<!-- bench:build-curve:end -->');
  doc =
    start !== -1 && end !== -1
      ? `${doc.slice(0, start)}${section}${doc.slice(end + '<!-- bench:build-curve:end -->'.length)}`
      : `${doc.trimEnd()}\n\n${section}\n`;
  writeFileSync(docPath, doc);
  log(`wrote ${docPath}`);
  process.stdout.write(`${section}\n`);
}

if (process.env.BENCH_CURVE) {
  runCurve(process.env.BENCH_CURVE.split(',').map((size) => Number(size.trim())));
  process.exit(0);
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
log(`generating ${N} posts`);
const content = generateContent(N);
const snapshotPath = join(out, `site-${N}.json`);
writeFileSync(snapshotPath, JSON.stringify(trellisSnapshot(content)));
const eleventyDir = join(out, 'eleventy');
writeEleventyProject(content, eleventyDir);
const eleventyDefaultDir = join(out, 'eleventy-default');
writeEleventyProject(content, eleventyDefaultDir, { liquidCache: false });

log('trellis: full + incremental (folder target)');
const trellis = child('run-trellis.mjs', [snapshotPath, join(out, 'trellis-folder'), 'folder'], {
  timeoutMs: 600_000,
});
log(JSON.stringify(trellis));
let directory = { ok: false, error: 'not run (BENCH_DIRECTORY=1 runs it)' };
if (process.env.BENCH_DIRECTORY === '1') {
  log('trellis: full + incremental (directory target: versions + symlink)');
  directory = child('run-trellis.mjs', [snapshotPath, join(out, 'trellis-directory'), 'directory'], {
    timeoutMs: 300_000,
  });
  log(JSON.stringify(directory));
}
// The goal's baseline is Eleventy as installed (its default configuration); the run with liquidjs's
// template cache turned on is a stricter comparison, reported beside it.
let eleventyDefault = { ok: false, error: 'not run (BENCH_ELEVENTY_DEFAULT=0)' };
if (process.env.BENCH_ELEVENTY_DEFAULT !== '0') {
  log('eleventy 3.1.7: full build, default configuration');
  eleventyDefault = child('run-eleventy.mjs', [eleventyDefaultDir], { timeoutMs: 600_000, heapMb: 8192 });
  log(JSON.stringify(eleventyDefault));
}
log('eleventy 3.1.7: full build, liquidjs template cache on');
const eleventy = child('run-eleventy.mjs', [eleventyDir], { timeoutMs: 600_000, heapMb: 8192 });
log(JSON.stringify(eleventy));

let large = { ok: false, error: 'not run in this run (BENCH_SKIP_LARGE=1)' };
if (process.env.BENCH_SKIP_LARGE !== '1') {
  log(`generating ${LARGE} posts`);
  const largePath = join(out, `site-${LARGE}.json`);
  writeFileSync(largePath, JSON.stringify(trellisSnapshot(generateContent(LARGE))));
  log('trellis: 100k full build');
  large = child('run-trellis.mjs', [largePath, join(out, 'trellis-large'), 'large'], {
    timeoutMs: 900_000,
  });
  log(JSON.stringify(large));
}

const rate = (r) => (r.ok && r.pages ? Math.round(r.pages / (r.fullMs / 1000)) : null);
const fmt = (v, unit = '') => (v === null || v === undefined ? 'n/a' : `${v.toLocaleString('en-US')}${unit}`);
const ratio = (a, b, key) => (a.ok && b.ok && b[key] ? (a[key] / b[key]).toFixed(1) : null);
const speedup = ratio(eleventyDefault, trellis, 'fullMs');
const cpuRatio = ratio(eleventyDefault, trellis, 'fullCpuMs');
const cachedSpeedup = ratio(eleventy, trellis, 'fullMs');
const cachedCpuRatio = ratio(eleventy, trellis, 'fullCpuMs');
const incShare = trellis.ok ? ((trellis.incrementalMs / trellis.fullMs) * 100).toFixed(2) : null;
const node = process.version;
const cpu = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`;
const date = new Date().toISOString().slice(0, 10);
const ticksEnd = cpuTicks();
const steal =
  ticksStart && ticksEnd && ticksEnd.total > ticksStart.total
    ? `${(((ticksEnd.steal - ticksStart.steal) / (ticksEnd.total - ticksStart.total)) * 100).toFixed(1)} %`
    : 'unknown';
const load = `load average ${loadStart} at the start and ${loadavg()[0].toFixed(1)} at the end on ${cpus().length} cores, CPU time taken by the hypervisor (steal) during the run ${steal}`;
const mark = (ok) => (ok ? 'met' : 'not met');
const section = `<!-- bench:build:start -->
## Static build

Measured by \`pnpm bench\` (\`bench/build-bench.mjs\`), ${date}, Node ${node}, ${cpu}, ${load}.
Same generated content for both: ${N.toLocaleString('en-US')} posts (markdown bodies, 1–3 of 50 tags, an author, 3 related posts),
50 tag pages (up to 50 posts each), a home page (10 latest) and the paginated archive (${Math.ceil(N / 20)} pages of 20), with equivalent
Liquid templates (layout, a card partial, markdown filter on marked + sanitize-html for both). Trellis also writes
\`sitemap.xml\` and the MiniSearch index; Eleventy reads precomputed data (tags, related posts) where Trellis follows edges with
\`{% traverse %}\`. Each build runs in its own child process; peak memory is that process's maxRSS (Trellis: main thread +
2 render workers). Full-build times exclude reading the input (Trellis snapshot JSON.parse: ${fmt(trellis.loadMs, ' ms')}).

How each side is set up: Eleventy 3.1.7 runs through its programmatic API (\`new Eleventy(...).write()\`, quiet mode, no plugins,
\`--max-old-space-size=8192\`), twice: as installed (its default configuration: the goal's baseline, which the issue puts at about
30 s on this machine), and with liquidjs's template cache turned on (\`setLiquidOptions({ cache: true })\`), a stricter comparison.
Eleventy leaves that cache off for watch mode; without it every \`{% render %}\` looks its partial up again (two async \`realpath\`
walks, one \`lstat\` per path segment, each a thread-pool round trip) and parses it again: several times the CPU, and a wall time
above the CPU time while Eleventy waits on those lookups. Trellis parses each template once.
Trellis's \`markdown\` filter gives the same bytes as marked + sanitize-html, but skips sanitize-html's second parse when marked's
output is plain markup sanitize-html keeps unchanged (\`packages/builder/src/liquid/plain-html.ts\`, compared with sanitize-html on
generated markdown in its tests); Eleventy's filter always runs both.

| | Trellis builder | Eleventy 3.1.7 (default configuration) | Eleventy 3.1.7 (liquidjs template cache on) |
| --- | ---: | ---: | ---: |
| full build, ${N.toLocaleString('en-US')} items (${fmt(trellis.pages)} / ${fmt(eleventyDefault.pages)} / ${fmt(eleventy.pages)} pages) | ${fmt(trellis.fullMs, ' ms')} | ${eleventyDefault.ok ? fmt(eleventyDefault.fullMs, ' ms') : eleventyDefault.error} | ${eleventy.ok ? fmt(eleventy.fullMs, ' ms') : eleventy.error} |
| pages/s | ${fmt(rate(trellis))} | ${fmt(rate(eleventyDefault))} | ${fmt(rate(eleventy))} |
| CPU time of the full build, all threads | ${fmt(trellis.fullCpuMs, ' ms')} | ${fmt(eleventyDefault.fullCpuMs, ' ms')} | ${fmt(eleventy.fullCpuMs, ' ms')} |
| peak memory (maxRSS) | ${fmt(trellis.maxRssMb, ' MB')} | ${fmt(eleventyDefault.maxRssMb, ' MB')} | ${fmt(eleventy.maxRssMb, ' MB')} |
| incremental one-item rebuild (warm, folder target) | ${fmt(trellis.incrementalMs, ' ms')} (${fmt(trellis.incrementalRendered)} pages re-rendered, ${fmt(trellis.incrementalUploaded)} files changed) | not measured | not measured |
| one post's body edited, incremental (warm, folder target; the post most listed in related blocks, which show its title) | ${fmt(trellis.bodyEditMs, ' ms')} (${fmt(trellis.bodyEditRendered)} pages re-rendered; the post is in ${fmt(trellis.bodyEditListings)} related blocks) | not measured | not measured |
| incremental one-item rebuild (directory target: new version folder, unchanged files hard-linked, pointer swap) | ${directory.ok ? fmt(directory.incrementalMs, ' ms') : directory.error} | – | – |
| full build, ${LARGE.toLocaleString('en-US')} items | ${large.ok ? `${fmt(large.fullMs, ' ms')}, ${fmt(large.pages)} pages, ${fmt(rate(large))} pages/s, peak ${fmt(large.maxRssMb, ' MB')}` : large.error} | not run | not run |

Goals, measured side by side in this run:

- full build ≥ 4× faster than Eleventy (as installed, its default configuration): ${speedup ? `${speedup}× by wall time — ${mark(Number(speedup) >= 4)}` : `n/a (${eleventyDefault.error ?? 'Trellis failed'})`}${cpuRatio ? ` (by CPU time: Eleventy used ${cpuRatio}× the CPU of Trellis)` : ''}
  - the stricter comparison, Eleventy with liquidjs's template cache on: ${cachedSpeedup ? `${cachedSpeedup}× by wall time` : 'n/a'}${cachedCpuRatio ? `, ${cachedCpuRatio}× by CPU time` : ''} (not the goal's baseline)
- incremental one-item rebuild < 2 % of the full build: ${incShare ? `${incShare} % — ${mark(Number(incShare) < 2)}` : 'n/a'}
- peak memory < 600 MB at ${N.toLocaleString('en-US')} items: ${trellis.ok ? `${trellis.maxRssMb} MB — ${mark(trellis.maxRssMb < 600)}` : 'n/a'}
- a ${LARGE.toLocaleString('en-US')}-item site builds: ${large.ok ? 'met' : `not met (${large.error})`}
<!-- bench:build:end -->`;

const docPath = join(here, '..', 'docs', 'benchmarks.md');
let doc = '';
try {
  doc = readFileSync(docPath, 'utf8');
} catch {
  doc = '# Benchmarks\n';
}
const start = doc.indexOf('<!-- bench:build:start -->');
const end = doc.indexOf('<!-- bench:build:end -->');
doc =
  start !== -1 && end !== -1
    ? `${doc.slice(0, start)}${section}${doc.slice(end + '<!-- bench:build:end -->'.length)}`
    : `${doc.trimEnd()}\n\n${section}\n`;
writeFileSync(docPath, doc);
log(`wrote ${docPath}`);
process.stdout.write(`${section}\n`);
