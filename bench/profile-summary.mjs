// Summarises the CPU profiles of one process (`node --cpu-prof --cpu-prof-dir=<dir> cms-build ...` writes
// one per thread: main and each render worker): self time grouped by where the frame lives.
// Usage: node bench/profile-summary.mjs <dir>
import { readdirSync, readFileSync } from 'node:fs';

const dir = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort();
const cat = (cf) => {
  const u = cf.url,
    f = cf.functionName;
  if (f === '(idle)') return 'idle';
  if (f === '(garbage collector)') return 'garbage collection';
  if (u.includes('liquidjs')) return 'liquidjs (template evaluation)';
  if (u.includes('marked') || u.includes('sanitize')) return 'markdown (marked)';
  if (u.includes('minisearch')) return 'search index (MiniSearch)';
  if (u.includes('zod')) return 'zod schemas (module start-up)';
  if (
    /compileSourceTextModule|parseSource|ModuleWrap|internalModuleStat/.test(f) ||
    u.includes('modules/esm') ||
    u.includes('cjs-module-lexer')
  )
    return 'module loading';
  if (
    /^(mkdir|openFileHandle|close|writeBuffer|writeFileHandle|rename|lstat|stat|unlink|rmdir|readdir|open)$/.test(
      f,
    ) ||
    u.startsWith('node:fs') ||
    u.includes('internal/fs')
  )
    return 'file system (writing pages)';
  if (/^(hash|update|digest)$/.test(f) || u.includes('crypto')) return 'hashing (sha1/sha256)';
  if (
    f === 'postMessage' ||
    u.includes('internal/worker') ||
    f === 'structuredClone' ||
    u.includes('per_context/messageport')
  )
    return 'worker messages';
  if (u.includes('builder/dist')) return 'Trellis builder code (reader, views, deps, tags, planning)';
  if (u.includes('core/dist')) return 'Trellis core (sorting, dates)';
  if (f.startsWith('RegExp:')) return 'regular expressions';
  if (f === '(program)') return '(program: V8/native)';
  return 'other native/node';
};
const groups = { main: new Map(), workers: new Map() };
const totals = { main: 0, workers: 0 };
for (const f of files) {
  const p = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
  const side = /\.0\.\d+\.cpuprofile$/.test(f) ? 'main' : 'workers';
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]);
    const d = p.timeDeltas[i] ?? 0;
    totals[side] += d;
    const k = cat(n.callFrame);
    groups[side].set(k, (groups[side].get(k) ?? 0) + d);
  }
}
for (const side of ['main', 'workers']) {
  const busy = totals[side] - (groups[side].get('idle') ?? 0);
  console.log(`\n${side}: sampled ${(totals[side] / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s`);
  for (const [k, d] of [...groups[side]].filter(([k]) => k !== 'idle').sort((a, b) => b[1] - a[1]))
    console.log(`| ${k} | ${(d / 1e6).toFixed(2)} s | ${((100 * d) / busy).toFixed(0)} % |`);
}
