// Child process of the memory curve (`BENCH_CURVE`): writes the bench site of N posts as a snapshot file,
// streamed item by item (a million items' JSON is past the longest string V8 can hold).
import { closeSync, openSync, writeSync } from 'node:fs';
import { generateContent, trellisSnapshot } from './generate-site.mjs';

const [count, path] = process.argv.slice(2);
const snapshot = trellisSnapshot(generateContent(Number(count)));
const { items, edges, ...rest } = snapshot;
const fd = openSync(path, 'w');
let buffer = [];
let size = 0;
const write = (text) => {
  buffer.push(text);
  size += text.length;
  if (size > 1 << 22) flush();
};
const flush = () => {
  writeSync(fd, buffer.join(''));
  buffer = [];
  size = 0;
};
const head = JSON.stringify(rest);
write(`${head.slice(0, -1)},"items":[`);
for (const [i, item] of items.entries()) write(`${i === 0 ? '' : ','}${JSON.stringify(item)}`);
write('],"edges":[');
for (const [i, edge] of edges.entries()) write(`${i === 0 ? '' : ','}${JSON.stringify(edge)}`);
write(']}');
flush();
closeSync(fd);
