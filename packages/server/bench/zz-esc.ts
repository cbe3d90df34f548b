import { sizedRecord } from './import-sizes';

const BODY = Number(process.env.BODY ?? 2450);
const recs = Array.from({ length: 10000 }, (_, i) => sizedRecord(i, BODY));
const parsed = (JSON.parse(JSON.stringify(recs)) as Record<string, unknown>[]).map((r) => r.body as string);
const OTHER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff]/;
function esc(s: string): string {
  if (s.length < 64 || OTHER.test(s)) return JSON.stringify(s);
  let out = s;
  if (out.includes('\\')) out = out.replaceAll('\\', '\\\\');
  if (out.includes('"')) out = out.replaceAll('"', '\\"');
  if (out.includes('\n')) out = out.replaceAll('\n', '\\n');
  if (out.includes('\r')) out = out.replaceAll('\r', '\\r');
  if (out.includes('\t')) out = out.replaceAll('\t', '\\t');
  return `"${out}"`;
}
const t0 = (name: string, f: (s: string) => string) => {
  const c = process.cpuUsage();
  let n = 0;
  for (const s of parsed) n += f(s).length;
  const u = process.cpuUsage(c);
  return `${name} ${((u.user + u.system) / 1000).toFixed(0)} ms`;
};
for (let r = 0; r < 8; r++)
  console.log(
    t0('JSON.stringify', (s) => JSON.stringify(s)),
    '|',
    t0('esc', esc),
  );
