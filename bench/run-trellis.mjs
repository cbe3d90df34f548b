// Child process: one Trellis build scenario; prints a JSON line with timings and peak RSS.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { build, createDirectoryTarget, createFolderTarget, RenderPool } from '@trelliscms/builder';

const [snapshotPath, outDir, scenario] = process.argv.slice(2);
const t0 = performance.now();
const snapshot = JSON.parse(readFileSync(snapshotPath, 'utf8'));
const loadMs = performance.now() - t0;
rmSync(outDir, { recursive: true, force: true });
const report = { scenario, loadMs: Math.round(loadMs) };

// Warm render workers kept between builds, as the server keeps them per site and environment.
const pool = new RenderPool({ size: 2 });
const target =
  scenario === 'directory' ? createDirectoryTarget({ root: outDir }) : createFolderTarget({ dir: outDir });
const cpu0 = process.cpuUsage();
const full = await build({ source: snapshot, target, mode: 'full', buildId: 'bench-full', pool });
if (!full.ok) throw new Error(`full build failed: ${JSON.stringify(full.errors.slice(0, 3))}`);
report.pages = full.rendered;
report.files = full.artifacts;
report.fullMs = full.durationMs;
// CPU time of the whole process (main thread and render workers): steadier than wall time on a busy machine.
const cpu = process.cpuUsage(cpu0);
report.fullCpuMs = Math.round((cpu.user + cpu.system) / 1000);

if (scenario !== 'large') {
  // One-item edit (a new item version, as the next export would carry), rebuilt in the same process.
  const index = snapshot.items.findIndex((i) => i.id === 'post:post-5000');
  const at = index === -1 ? snapshot.items.findIndex((i) => i.type === 'post') : index;
  const before = snapshot.items[at];
  const fields = { ...before.fields, title: `${before.fields.title} (edited)` };
  const hash = `sha256:${createHash('sha256').update(JSON.stringify(fields)).digest('hex')}`;
  snapshot.items[at] = { ...before, fields, hash, version: 2 };
  const incremental = await build({
    source: snapshot,
    target,
    mode: 'incremental',
    buildId: 'bench-incremental',
    pool,
  });
  if (!incremental.ok || incremental.effectiveMode !== 'incremental')
    throw new Error('incremental build failed');
  report.incrementalMs = incremental.durationMs;
  report.incrementalRendered = incremental.rendered;
  report.incrementalUploaded = incremental.deploy.filesUploaded;

  // One post's body edited: the post most often listed in related blocks (they show its title
  // only), so field-level dependencies re-render the one page that shows the body.
  const listed = new Map();
  for (const edge of snapshot.edges)
    if (edge.edge === 'RELATED') listed.set(edge.to, (listed.get(edge.to) ?? 0) + 1);
  const [mostListed, listings] = [...listed].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const bodyAt = snapshot.items.findIndex((i) => i.id === mostListed);
  const post = snapshot.items[bodyAt];
  const bodyFields = { ...post.fields, body: `${post.fields.body}\n\nEdited.` };
  snapshot.items[bodyAt] = {
    ...post,
    fields: bodyFields,
    hash: `sha256:${createHash('sha256').update(JSON.stringify(bodyFields)).digest('hex')}`,
    version: 2,
  };
  const bodyEdit = await build({
    source: snapshot,
    target,
    mode: 'incremental',
    buildId: 'bench-body',
    pool,
  });
  if (!bodyEdit.ok || bodyEdit.effectiveMode !== 'incremental') throw new Error('body-edit build failed');
  report.bodyEditMs = bodyEdit.durationMs;
  report.bodyEditRendered = bodyEdit.rendered;
  report.bodyEditListings = listings;
  if (scenario === 'directory') Object.assign(report, await directorySteadyEdits());
}
await pool.close();
report.maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify(report)}\n`);

/**
 * Directory target in steady state (BENCH_DIRECTORY=1): one post body edited after another, each
 * build followed by `prune({ keep })` as the server prunes after every build (CMS_BUILD_RETENTION),
 * so a build finds a pruned version to recycle. BENCH_DIRECTORY_KEEP (default 2: the live version
 * and one to roll back to), BENCH_DIRECTORY_EDITS (default 7). Reports medians of the build
 * (deploy included: durationMs), its deploy step, its CPU time (all threads) and the prune after it.
 */
async function directorySteadyEdits() {
  const keep = Number(process.env.BENCH_DIRECTORY_KEEP ?? 2);
  const edits = Number(process.env.BENCH_DIRECTORY_EDITS ?? 7);
  const posts = snapshot.items.map((item, at) => ({ item, at })).filter(({ item }) => item.type === 'post');
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const prune = async () => {
    const started = performance.now();
    await target.prune({ keep });
    return performance.now() - started;
  };
  await prune();
  const runs = [];
  for (let n = 0; n < edits; n++) {
    const { item, at } = posts[Math.floor(((n + 1) * posts.length) / (edits + 2))];
    const fields = { ...item.fields, body: `${item.fields.body}\n\nSteady edit ${n}.` };
    const hash = `sha256:${createHash('sha256').update(JSON.stringify(fields)).digest('hex')}`;
    snapshot.items[at] = { ...item, fields, hash, version: (item.version ?? 1) + 1 };
    const cpu0 = process.cpuUsage();
    const result = await build({
      source: snapshot,
      target,
      mode: 'incremental',
      buildId: `bench-steady-${n}`,
      pool,
    });
    const cpu = process.cpuUsage(cpu0);
    if (!result.ok || result.effectiveMode !== 'incremental') throw new Error('steady edit build failed');
    runs.push({
      ms: result.durationMs,
      deployMs: result.deploy.durationMs,
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      pruneMs: Math.round(await prune()),
      rendered: result.rendered,
    });
  }
  return {
    steadyKeep: keep,
    steadyEditMs: median(runs.map((r) => r.ms)),
    steadyDeployMs: median(runs.map((r) => r.deployMs)),
    steadyEditCpuMs: median(runs.map((r) => r.cpuMs)),
    steadyPruneMs: median(runs.map((r) => r.pruneMs)),
    steadyRuns: runs,
  };
}
