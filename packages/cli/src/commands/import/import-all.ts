import { extname, resolve } from 'node:path';
import { type ContentType, type EdgeTriple, recordFromCsvRow } from '@trelliscms/core';
import type { ImportProgress } from '@trelliscms/sdk';
import { ExitCode, UsageError } from '../../errors';
import { createProgress } from '../../io/progress';
import { readJsonFile, readText } from '../../io/read-json-file';
import { formatOf, parseRecords, type RejectedRow } from '../../io/read-records';
import type { SiteCommandDeps } from '../context';
import { sendEdges, toEdge } from './import';

/** One type's records to import, as read from the file or folder. */
interface TypeBatch {
  type: string;
  records: Record<string, unknown>[];
  source: string;
  rejected: RejectedRow[];
}

export interface ImportAllOptions {
  /** A folder of `<type>.json|ndjson|csv` files (and `edges.*`), or a JSON file `{records: {<type>: [...]}, edges?: [...]}`. */
  path: string;
  batchSize?: number;
  callSize?: number;
  skipExisting: boolean;
  dryRun: boolean;
  publish?: string;
  errorsFile?: string;
}

const DATA_EXTENSIONS = new Set(['.json', '.ndjson', '.jsonl', '.csv']);

/**
 * The order types are imported in: a type after the types its reference fields and
 * relationships point at, so those items exist when its records name them (ties and cycles
 * in name order; the edges of a cycle are better given as edges, imported last).
 */
export function dependencyOrder(
  types: ReadonlyArray<Pick<ContentType, 'name' | 'fields' | 'relationships'>>,
): string[] {
  const names = new Set(types.map((type) => type.name));
  const needs = new Map<string, Set<string>>();
  for (const type of types) {
    const targets = [
      ...type.fields
        .filter((field) => field.type === 'reference' && field.target)
        .map((field) => field.target!),
      ...(type.relationships ?? []).map((relationship) => relationship.target),
    ].filter((target) => target !== type.name && names.has(target));
    needs.set(type.name, new Set(targets));
  }
  const order: string[] = [];
  const remaining = new Set([...names].sort());
  while (remaining.size > 0) {
    const ready = [...remaining].find((name) => [...needs.get(name)!].every((dep) => !remaining.has(dep)));
    // A cycle: take the first in name order.
    const next = ready ?? [...remaining][0]!;
    order.push(next);
    remaining.delete(next);
  }
  return order;
}

/** Reads a folder or a multi-type JSON file into batches per type and the edges. */
async function readAll(
  io: SiteCommandDeps['io'],
  path: string,
): Promise<{ batches: TypeBatch[]; edges: EdgeTriple[]; edgesSource: string | null }> {
  const full = resolve(io.cwd, path);
  let isFolder = false;
  try {
    isFolder = (await io.fs.stat(full)).isDirectory();
  } catch (error) {
    throw new UsageError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const batches: TypeBatch[] = [];
  let edges: EdgeTriple[] = [];
  let edgesSource: string | null = null;
  if (isFolder) {
    const files = (await io.fs.readdir(full))
      .filter((name) => DATA_EXTENSIONS.has(extname(name).toLowerCase()))
      .sort();
    for (const name of files) {
      const file = resolve(full, name);
      const format = formatOf(name, undefined);
      const base = name.slice(0, -extname(name).length);
      const text = await readText(io.fs, io.cwd, file);
      const rejected: RejectedRow[] = [];
      if (base === 'edges') {
        edges = parseRecords({ text, format, file: name, key: 'edges' }).map((row, index) =>
          toEdge(row, index, name, format === 'csv'),
        );
        edgesSource = name;
        continue;
      }
      const rows = parseRecords({ text, format, file: name, key: 'records', pick: base, rejected });
      batches.push({ type: base, records: rows, source: format === 'csv' ? `csv:${name}` : name, rejected });
    }
  } else {
    const value = await readJsonFile(io.fs, io.cwd, path);
    const records = (value as { records?: unknown }).records;
    if (
      typeof value !== 'object' ||
      value === null ||
      typeof records !== 'object' ||
      records === null ||
      Array.isArray(records)
    ) {
      throw new UsageError(
        `${path}: a multi-type import file is {"records": {"<type>": [...], ...}, "edges": [...]}; for one type's records pass --type <name>`,
      );
    }
    for (const [type, list] of Object.entries(records as Record<string, unknown>)) {
      if (!Array.isArray(list)) throw new UsageError(`${path}: records.${type} is not an array`);
      batches.push({ type, records: list as Record<string, unknown>[], source: path, rejected: [] });
    }
    const rawEdges = (value as { edges?: unknown }).edges;
    if (Array.isArray(rawEdges)) {
      edges = rawEdges.map((row, index) => toEdge(row as Record<string, unknown>, index, path, false));
      edgesSource = path;
    }
  }
  if (batches.length === 0 && edges.length === 0) {
    throw new UsageError(
      `${path}: no records found (expected <type>.json, .ndjson or .csv files, and edges.*)`,
    );
  }
  return { batches, edges, edgesSource };
}

/**
 * `cms import records <folder or file>` without `--type`: every type's records in dependency
 * order (a type after those its references and relationships point at), then the edges. One
 * progress bar per type, one errors file for all (each line names its type). Exits 4 when
 * anything failed.
 */
export async function importAll({
  site,
  out,
  io,
  ...options
}: SiteCommandDeps & ImportAllOptions): Promise<number> {
  const { batches, edges, edgesSource } = await readAll(io, options.path);
  const types = new Map<string, ContentType>();
  for (const batch of batches) {
    try {
      types.set(batch.type, await site.types.get(batch.type));
    } catch (error) {
      throw new UsageError(
        `${batch.source.replace(/^csv:/, '')}: the site has no content type "${batch.type}" (${(error as Error).message}); name files after types, e.g. post.csv`,
      );
    }
  }
  const order = dependencyOrder([...types.values()]);
  out.note(`Importing ${order.join(', ')}${edges.length > 0 ? ', then edges' : ''}.`);
  const failures: object[] = [];
  const lines: string[] = [];
  const summary: Record<string, unknown> = {};
  let failed = 0;
  for (const type of order) {
    const batch = batches.find((entry) => entry.type === type)!;
    const records = batch.source.startsWith('csv:')
      ? (batch.records as Record<string, string>[]).map((cells) =>
          recordFromCsvRow({ type: types.get(type)!, cells }),
        )
      : batch.records;
    const progress = createProgress({ stderr: io.stderr, label: type, total: records.length });
    let result: Awaited<ReturnType<typeof site.import.records>>;
    try {
      result = await site.import.records({
        typeName: type,
        records,
        batchSize: options.batchSize,
        callSize: options.callSize,
        skipExisting: options.skipExisting,
        dryRun: options.dryRun,
        publish: options.publish,
        onProgress: (p: ImportProgress) => progress.update(p),
      });
    } finally {
      progress.stop();
    }
    failures.push(
      ...batch.rejected.map((row) => ({ type, ...row, error: `unreadable CSV row: ${row.error}` })),
      ...result.errors.map((error) => ({ type, ...error })),
    );
    failed += result.failed + batch.rejected.length;
    summary[type] = result;
    lines.push(
      `  ${type}: ${result.created} created, ${result.updated ?? 0} updated, ${result.unchanged ?? 0} unchanged, ${result.failed} failed` +
        (batch.rejected.length > 0 ? `, ${batch.rejected.length} unreadable CSV row(s)` : ''),
    );
  }
  if (edges.length > 0 && !options.dryRun) {
    const result = await sendEdges(site, io, edges, { callSize: options.callSize });
    failures.push(...result.errors.map((error) => ({ type: 'edges', ...error })));
    failed += result.failed;
    summary.edges = result;
    lines.push(
      `  edges (${edgesSource}): ${result.merged} merged, ${result.mismatch} skipped (an end does not exist), ${result.failed} failed`,
    );
  }
  const errorsFile =
    failures.length > 0
      ? resolve(
          io.cwd,
          options.errorsFile ??
            `${options.path.replace(/[\\/]+$/, '').replace(/\.[^./\\]+$/, '')}.errors.ndjson`,
        )
      : null;
  if (errorsFile)
    await io.fs.writeFile(errorsFile, `${failures.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
  out.result({ order, ...summary, errorsFile }, () => [
    `${options.dryRun ? 'Checked' : 'Imported'} ${order.length} type(s) in dependency order:`,
    ...lines,
    ...(errorsFile ? [`Errors written to ${errorsFile}.`] : []),
  ]);
  return failed > 0 ? ExitCode.partial : ExitCode.ok;
}
