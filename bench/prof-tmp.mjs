import { readFileSync, rmSync } from 'node:fs';
import { build, createFolderTarget } from '@trelliscms/builder';

const snapshot = JSON.parse(readFileSync(`/work/main/bench/out/site-${process.argv[2]}.json`, 'utf8'));
rmSync('/tmp/prof-out', { recursive: true, force: true });
const target = createFolderTarget({ dir: '/tmp/prof-out' });
const mk = (t0) => (p) => {
  if (p.done === 0 || p.done === p.total)
    console.log(p.phase, p.done, p.total, Math.round(performance.now() - t0));
};
let r = await build({ source: snapshot, target, mode: 'full', onProgress: mk(performance.now()) });
console.log('full', r.durationMs, r.rendered);
const post = snapshot.items.find((i) => i.type === 'post');
post.fields = { ...post.fields, title: 'edited' };
post.version = 2;
r = await build({ source: snapshot, target, mode: 'incremental', onProgress: mk(performance.now()) });
console.log('incremental', r.durationMs, r.rendered, r.effectiveMode);
