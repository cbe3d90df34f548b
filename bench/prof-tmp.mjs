import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { build, createFolderTarget, RenderPool } from '@trelliscms/builder';

const snapshot = JSON.parse(readFileSync(`/work/main/bench/out/site-${process.argv[2]}.json`, 'utf8'));
rmSync('/tmp/prof-out', { recursive: true, force: true });
const target = createFolderTarget({ dir: '/tmp/prof-out' });
const pool = new RenderPool({ size: 2 });
const mk = (t0) => (p) => {
  if (p.done === 0 || p.done === p.total)
    console.log(p.phase, p.done, p.total, Math.round(performance.now() - t0));
};
let r = await build({ source: snapshot, target, mode: 'full', pool, onProgress: mk(performance.now()) });
console.log('full', r.durationMs, r.rendered);
for (let k = 0; k < 3; k++) {
  const at = snapshot.items.findIndex((i) => i.type === 'post');
  const before = snapshot.items[at];
  const fields = { ...before.fields, title: before.fields.title + 'x' };
  snapshot.items[at] = {
    ...before,
    fields,
    hash: createHash('sha256').update(JSON.stringify(fields)).digest('hex'),
  };
  r = await build({ source: snapshot, target, mode: 'incremental', pool, onProgress: mk(performance.now()) });
  console.log('incremental', r.durationMs, r.rendered, r.effectiveMode);
}
await pool.close();
