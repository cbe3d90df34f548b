/**
 * Tight loop of GET item's record building alone (issue 20 item 5): the props' text parsed, the
 * record built and serialized (what the route did) against contentRecordJson (the text copied),
 * for the bench's `place` item and for a 2.5 KB rich-text post, in alternation. Not part of
 * `pnpm bench`. Run: npx tsx --tsconfig bench/tsconfig.json bench/record-json-loop.ts
 */
import { loadavg } from 'node:os';
import { contentRecordJson, toContentRecord } from '../src/content/item-record';
import { placeRecord } from './bench-app';

const meta = {
  status: 'published',
  publishedEnvs: ['prod'],
  publishedVersions: { prod: 2 },
  publishedAt: '2026-11-26T10:00:00.000Z',
  version: 2,
  hash: `sha256:${'ab'.repeat(32)}`,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-26T10:00:00.000Z',
  createdBy: 'owner',
  updatedBy: 'owner',
};
const place = JSON.stringify({
  ...placeRecord(42),
  ...meta,
  blockDocument: { time: 0, blocks: [], version: '1' },
});
const words =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "quoted" — ünïcode'.split(
    ' ',
  );
const text = (n: number) => Array.from({ length: n }, (_, i) => words[i % words.length]).join(' ');
const post = JSON.stringify({
  title: 'A post',
  slug: 'a-post',
  summary: text(30),
  ...meta,
  blockDocument: {
    time: 1,
    blocks: Array.from({ length: 8 }, (_, i) => ({
      id: `b${i}`,
      type: 'paragraph',
      data: { text: text(40) },
    })),
    version: '1',
  },
});
const cases: Array<[string, string, Record<string, unknown>]> = [
  ['place', place, { near: ['place:place-1', 'place:place-2'] }],
  [`post (${post.length} B)`, post, {}],
];
const COUNT = 50_000;
const time = (fn: () => number) => {
  const start = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < COUNT; i += 1) sink += fn();
  const used = process.cpuUsage(start);
  if (sink < 0) console.log(sink);
  return ((used.user + used.system) / COUNT).toFixed(2);
};
for (const [name, json, relationships] of cases) {
  const id = 'place:place-42';
  const before = () =>
    JSON.stringify(toContentRecord({ id, labels: [], props: JSON.parse(json) }, relationships)).length;
  const after = () => contentRecordJson(id, json, relationships).json.length;
  // Strings built by concatenation are flattened when sent: count that too.
  const afterFlat = () => Buffer.byteLength(contentRecordJson(id, json, relationships).json);
  const beforeFlat = () =>
    Buffer.byteLength(
      JSON.stringify(toContentRecord({ id, labels: [], props: JSON.parse(json) }, relationships)),
    );
  const rows: string[] = [];
  for (let r = 0; r < 4; r += 1) {
    rows.push(
      `parse+stringify ${time(before)} / ${time(beforeFlat)} µs, copied ${time(after)} / ${time(afterFlat)} µs`,
    );
  }
  console.log(
    `${name} (load ${loadavg()[0]?.toFixed(1)}; second figure with the UTF-8 byte length, as sending does):\n  ${rows.join('\n  ')}`,
  );
}
