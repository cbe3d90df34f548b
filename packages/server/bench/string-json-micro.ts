/**
 * A long text's JSON (issue 20 item 4, round 9): `JSON.stringify` against the import's
 * `stringJson` (content/item-hash.ts) on 10,000 markdown bodies of BODY characters as the
 * request's JSON.parse gives them; process CPU per pass, the two alternating, 8 passes.
 * Not part of `pnpm bench`. Run: BODY=2450 npx tsx --tsconfig bench/tsconfig.json bench/string-json-micro.ts
 */
import { stringJson } from '../src/content/item-hash';
import { sizedRecord } from './import-sizes';

const BODY = Number(process.env.BODY ?? 2450);
const records = Array.from({ length: 10000 }, (_, i) => sizedRecord(i, BODY));
const bodies = (JSON.parse(JSON.stringify(records)) as Record<string, unknown>[]).map(
  (record) => record.body as string,
);
for (const body of bodies)
  if (stringJson(body) !== JSON.stringify(body)) throw new Error('not the same text');

const pass = (name: string, write: (text: string) => string) => {
  const cpu = process.cpuUsage();
  let bytes = 0;
  for (const body of bodies) bytes += write(body).length;
  const used = process.cpuUsage(cpu);
  return `${name} ${((used.user + used.system) / 1000).toFixed(0)} ms (${bytes} characters)`;
};
for (let round = 0; round < 8; round++) {
  const native = () => pass('JSON.stringify', (text) => JSON.stringify(text));
  const ours = () => pass('stringJson', stringJson);
  // alternating which runs first
  console.log(round % 2 === 0 ? `${native()} | ${ours()}` : `${ours()} | ${native()}`);
}
