// Child process: one Trellis build scenario; prints a JSON line with timings and peak RSS.
import { readFileSync, rmSync } from 'node:fs';
import { build, createDirectoryTarget, createFolderTarget } from '@trelliscms/builder';

const [snapshotPath, outDir, scenario] = process.argv.slice(2);
const t0 = performance.now();
const snapshot = JSON.parse(readFileSync(snapshotPath, 'utf8'));
const loadMs = performance.now() - t0;
rmSync(outDir, { recursive: true, force: true });
const report = { scenario, loadMs: Math.round(loadMs) };

const target =
  scenario === 'directory' ? createDirectoryTarget({ root: outDir }) : createFolderTarget({ dir: outDir });
const full = await build({ source: snapshot, target, mode: 'full', buildId: 'bench-full' });
if (!full.ok) throw new Error(`full build failed: ${JSON.stringify(full.errors.slice(0, 3))}`);
report.pages = full.rendered;
report.files = full.artifacts;
report.fullMs = full.durationMs;

if (scenario !== 'large') {
  // One-item edit, rebuilt in the same (warm) process, as the server does.
  const post =
    snapshot.items.find((i) => i.id === 'post:post-5000') ?? snapshot.items.find((i) => i.type === 'post');
  post.fields = { ...post.fields, title: `${post.fields.title} (edited)` };
  post.version = 2;
  const incremental = await build({
    source: snapshot,
    target,
    mode: 'incremental',
    buildId: 'bench-incremental',
  });
  if (!incremental.ok || incremental.effectiveMode !== 'incremental')
    throw new Error('incremental build failed');
  report.incrementalMs = incremental.durationMs;
  report.incrementalRendered = incremental.rendered;
  report.incrementalUploaded = incremental.deploy.filesUploaded;
}
report.maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify(report)}\n`);
