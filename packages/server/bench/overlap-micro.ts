/**
 * Overlap prototype (issue 20 item 4, session 15, round 9): what the import could gain by
 * running a batch's SQLite writes on a second thread (its own connection) while the main
 * thread makes the next batch's rows. N records of BODY characters of body, batches of 500:
 * per batch the main thread parses the batch's JSON text, runs the import's compiled check
 * (`compileRecordCheck`), makes each row's fields JSON, content hash and search text
 * (`newRowParts`) and its props JSON (`newItemsJson`); the rows are then written as the import
 * writes them in schema 5 (nodes row, full-text entry, unique value row, one carrier row per
 * batch; one statement per row), in one transaction per batch with the engine's pragmas
 * (WAL, synchronous=FULL, ...).
 * - `serial`: the main thread writes each batch itself after making it (today's shape);
 * - `overlap`: a worker thread with its own connection writes batch n (the rows sent as three
 *   string arrays) while the main thread makes batch n+1; at most two batches in flight.
 * Wall time and process CPU; modes alternate, a fresh file each. Not part of `pnpm bench`.
 *
 * JS_ONLY=1 times the main thread's share alone (rows made, nothing written).
 *
 * Run: N=20000 BODY=40 ROUNDS=3 npx tsx --tsconfig bench/tsconfig.json bench/overlap-micro.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { StoredContentType } from '@trelliscms/core';
import Database from 'libsql';
import { compileRecordCheck, newRowParts } from '../src/content/import-prepare';
import { itemHasher } from '../src/content/item-hash';
import { emptyBody, newItemsJson } from '../src/content/item-record';
import { nextItemMeta } from '../src/content/item-write';
import { SCHEMA_SQL } from '../src/engines/embedded/schema';
import { sizedRecord } from './import-sizes';

const N = Number(process.env.N ?? 20000);
const BODY = Number(process.env.BODY ?? 40);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BATCH = 500;
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

const type = {
  name: 'article',
  label: 'Article',
  nodeLabel: 'Article',
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: true },
    { name: 'title', type: 'string', required: true, maxLength: 200 },
    { name: 'body', type: 'markdown' },
  ],
  relationships: [],
} as unknown as StoredContentType;

const PRAGMAS = [
  'journal_mode = WAL',
  'synchronous = FULL',
  'wal_autocheckpoint = 10000',
  'cache_size = -65536',
  'mmap_size = 268435456',
];
const INSERT_NODE = `INSERT INTO nodes (id, label, labels, props, text_given) VALUES (?, 'Article', '["Article","Content"]', ?, 1)`;
const INSERT_TEXT = 'INSERT INTO nodes_fts (rowid, body) VALUES (?, ?)';
const INSERT_UNIQUE = `INSERT INTO unique_values (label, prop, value, rid) VALUES ('Article', 'slug', ?, ?)`;
const INSERT_CARRIER = `INSERT OR IGNORE INTO label_carriers (label, primary_label) VALUES ('Content', 'Article')`;

interface Rows {
  ids: string[];
  json: string[];
  texts: string[];
  slugs: string[];
}

/** The batches' JSON texts, as the request body holds them (made before the clock starts). */
const batchTexts: string[] = [];
for (let at = 0; at < N; at += BATCH) {
  const records = [];
  for (let i = at; i < Math.min(at + BATCH, N); i++) records.push(sizedRecord(i, BODY));
  batchTexts.push(JSON.stringify(records));
}

/** The main thread's share of one batch: parse, check, row parts, props JSON. */
function makeRows(text: string, first: number): Rows {
  const check = compileRecordCheck(type)!;
  const body = emptyBody(1764100000000);
  const hashWithBody = itemHasher(body);
  const json = newItemsJson(
    nextItemMeta({
      previous: null,
      fields: {},
      body,
      actor: 'apikey:owner',
      now: new Date().toISOString(),
      hash: () => '',
    }),
    type.fields.map((field) => field.name),
  )!;
  const rows: Rows = { ids: [], json: [], texts: [], slugs: [] };
  const records = JSON.parse(text) as Record<string, unknown>[];
  records.forEach((record, k) => {
    const ok = check(record, first + k)!;
    const parts = newRowParts(type, ok.fields, hashWithBody);
    rows.ids.push(ok.id);
    rows.json.push(json(parts.fieldsJson, parts.hash));
    rows.texts.push(parts.text);
    rows.slugs.push(JSON.stringify(ok.fields.slug));
  });
  return rows;
}

function open(path: string) {
  const db = new Database(path, { timeout: 5000 });
  for (const pragma of PRAGMAS) db.exec(`PRAGMA ${pragma}`);
  return db;
}

function writeRows(db: ReturnType<typeof open>, rows: Rows) {
  const node = db.prepare(INSERT_NODE);
  const text = db.prepare(INSERT_TEXT);
  const unique = db.prepare(INSERT_UNIQUE);
  db.exec('BEGIN IMMEDIATE');
  db.exec(INSERT_CARRIER);
  for (let k = 0; k < rows.ids.length; k++) {
    const rid = node.run([rows.ids[k], rows.json[k]]).lastInsertRowid;
    text.run([rid, rows.texts[k]]);
    unique.run([rows.slugs[k], rid]);
  }
  db.exec('COMMIT');
}

/** The worker: the same writes (statements as above) on its own connection. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.libsql);
const db = new Database(workerData.path, { timeout: 5000 });
for (const pragma of workerData.pragmas) db.exec('PRAGMA ' + pragma);
const node = db.prepare(workerData.sql.node);
const text = db.prepare(workerData.sql.text);
const unique = db.prepare(workerData.sql.unique);
parentPort.on('message', (rows) => {
  if (rows === null) { db.close(); parentPort.close(); return; }
  db.exec('BEGIN IMMEDIATE');
  db.exec(workerData.sql.carrier);
  for (let k = 0; k < rows.ids.length; k++) {
    const rid = node.run([rows.ids[k], rows.json[k]]).lastInsertRowid;
    text.run([rid, rows.texts[k]]);
    unique.run([rows.slugs[k], rid]);
  }
  db.exec('COMMIT');
  parentPort.postMessage(rows.ids.length);
});
`;

async function once(mode: 'serial' | 'overlap'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-overlap-micro-'));
  const path = join(dir, 'g.db');
  const db = open(path);
  db.exec(SCHEMA_SQL);
  let worker: Worker | null = null;
  try {
    if (mode === 'overlap') {
      worker = new Worker(WORKER, {
        eval: true,
        workerData: {
          path,
          pragmas: PRAGMAS,
          libsql: createRequire(import.meta.url).resolve('libsql'),
          sql: { node: INSERT_NODE, text: INSERT_TEXT, unique: INSERT_UNIQUE, carrier: INSERT_CARRIER },
        },
      });
      // started before the clock, as a long-lived thread would be
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const cpu = process.cpuUsage();
    const started = performance.now();
    let written = 0;
    if (mode === 'serial') {
      batchTexts.forEach((text, b) => {
        const rows = makeRows(text, b * BATCH);
        writeRows(db, rows);
        written += rows.ids.length;
      });
    } else {
      const w = worker!;
      let inFlight = 0;
      let wake: (() => void) | null = null;
      w.on('message', (count: number) => {
        written += count;
        inFlight -= 1;
        wake?.();
      });
      for (let b = 0; b < batchTexts.length; b++) {
        const rows = makeRows(batchTexts[b]!, b * BATCH);
        while (inFlight >= 2) await new Promise<void>((resolve) => (wake = resolve));
        inFlight += 1;
        w.postMessage(rows);
      }
      while (inFlight > 0) await new Promise<void>((resolve) => (wake = resolve));
    }
    const ms = performance.now() - started;
    const count = Number((db.prepare('SELECT count(*) FROM nodes').raw(true).get([]) as unknown[])[0]);
    if (count !== N || written !== N)
      throw new Error(`wrote ${count} rows (${written} acknowledged), expected ${N}`);
    return `${mode.padEnd(8)} body ${BODY}: ${N} rows ${ms.toFixed(0)} ms wall (${Math.round((N / ms) * 1000)}/s), ${cpuMs(process.cpuUsage(cpu)).toFixed(0)} ms cpu; load ${loadavg()[0]!.toFixed(1)}`;
  } finally {
    if (worker) {
      worker.postMessage(null);
      await worker.terminate();
    }
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.JS_ONLY === '1') {
  for (let r = 0; r < 3; r++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    batchTexts.forEach((text, b) => {
      makeRows(text, b * BATCH);
    });
    console.log(
      `rows made alone: ${(performance.now() - t).toFixed(0)} ms wall, ${cpuMs(process.cpuUsage(cpu)).toFixed(0)} ms cpu`,
    );
  }
  process.exit(0);
}
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 === 0 ? (['serial', 'overlap'] as const) : (['overlap', 'serial'] as const))
    console.log(await once(mode));
}
