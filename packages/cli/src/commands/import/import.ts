import { basename, resolve } from 'node:path';
import { type EdgeTriple, recordFromCsvRow } from '@trelliscms/core';
import type { ImportProgress } from '@trelliscms/sdk';
import { ExitCode, UsageError } from '../../errors';
import type { Fs } from '../../io/cli-io';
import { createProgress } from '../../io/progress';
import { formatOf, propValueFromCell, type RejectedRow, readRecords } from '../../io/read-records';
import type { SiteCommandDeps } from '../context';

export interface ImportRecordsCommandOptions {
  file: string;
  type: string;
  format?: string;
  batchSize?: number;
  callSize?: number;
  skipExisting: boolean;
  dryRun: boolean;
  /** Publish what each request wrote to this environment (e.g. `prod`). */
  publish?: string;
  errorsFile?: string;
}

/**
 * `cms import records <file> --type T`: reads JSON, NDJSON or CSV, imports it in as many
 * requests as needed with a progress bar, prints a summary and writes failed records to
 * an errors file. CSV cells are converted by the type's declared fields (read from the
 * server first: core `recordFromCsvRow`), so a string field keeps `0451524934` as text.
 * Exits 4 when some records failed.
 */
export async function importRecords({
  site,
  out,
  io,
  ...options
}: SiteCommandDeps & ImportRecordsCommandOptions): Promise<number> {
  // Rows of a CSV file that cannot be read go to the errors file; the others are imported.
  const rejected: RejectedRow[] = [];
  const rows = await readRecords({
    fs: io.fs,
    cwd: io.cwd,
    file: options.file,
    format: options.format,
    key: 'records',
    pick: options.type,
    rejected,
  });
  const records =
    formatOf(options.file, options.format) === 'csv'
      ? await typedCsvRecords(site, options.type, rows as Record<string, string>[])
      : rows;
  const progress = createProgress({ stderr: io.stderr, label: `${options.type}`, total: records.length });
  let result: Awaited<ReturnType<typeof site.import.records>>;
  let last: ImportProgress | null = null;
  const interrupted = new AbortController();
  const stopListening = io.onInterrupt?.(() => interrupted.abort());
  try {
    result = await site.import.records({
      typeName: options.type,
      records,
      batchSize: options.batchSize,
      callSize: options.callSize,
      skipExisting: options.skipExisting,
      dryRun: options.dryRun,
      publish: options.publish,
      signal: interrupted.signal,
      onProgress: (p) => {
        last = p;
        progress.update(p);
      },
    });
  } catch (error) {
    if (!interrupted.signal.aborted) throw error;
    // The bar hid the cursor: give the terminal back before saying anything.
    progress.stop();
    return reportInterrupted(out, options, records.length, last);
  } finally {
    stopListening?.();
    progress.stop();
  }
  const failures: object[] = [
    ...rejected.map((row) => ({ ...row, error: `unreadable CSV row: ${row.error}` })),
    ...result.errors,
  ];
  const errorsFile =
    failures.length > 0
      ? await writeErrors(io.fs, io.cwd, options.errorsFile ?? defaultErrorsFile(options.file), failures)
      : null;
  // A dry run writes nothing: it says what a real import would do.
  const would = options.dryRun ? 'would be ' : '';
  const counts = [
    `${result.created} ${would}created`,
    ...(result.updated ? [`${result.updated} ${would}updated`] : []),
    ...(result.unchanged ? [`${result.unchanged} unchanged`] : []),
    ...(result.skipped ? [`${result.skipped} skipped`] : []),
    `${result.failed} failed`,
    ...(rejected.length > 0 ? [`${rejected.length} unreadable CSV row(s)`] : []),
  ];
  out.result({ ...result, unreadableRows: rejected.length, errorsFile }, () => [
    `${options.dryRun ? 'Dry run, nothing written: checked' : 'Imported'} ${result.totalRecords} ${options.type} record(s) in ${seconds(result.tookMs)}: ` +
      `${counts.join(', ')} (${result.recordsPerSec} records/s, ${result.calls} request(s)).`,
    ...(result.published
      ? [`Published ${result.published.count} item(s) to ${result.published.envId}.`]
      : []),
    ...(errorsFile
      ? [
          `Errors written to ${errorsFile}.`,
          ...rejected.slice(0, 5).map((row) => `  line ${row.line}: ${row.error}`),
          ...firstErrors(result.errors),
        ]
      : []),
  ]);
  return result.failed > 0 || rejected.length > 0 ? ExitCode.partial : ExitCode.ok;
}

/**
 * Ctrl-C during an import: what was done, and how to go on. Records sent before are stored
 * (each request is its own transaction); the one in flight either fully happened or not at all.
 */
function reportInterrupted(
  out: SiteCommandDeps['out'],
  options: ImportRecordsCommandOptions,
  total: number,
  last: ImportProgress | null,
): number {
  const done = last?.done ?? 0;
  out.note(
    [
      `Interrupted: ${done} of ${total} ${options.type} record(s) were imported before Ctrl-C (${last?.created ?? 0} created, ${last?.failed ?? 0} failed); the request in flight was either stored whole or not at all.`,
      `To resume, run the same command again: records already imported come back unchanged (no new version), so nothing is done twice.`,
      `  cms import records ${options.file} --type ${options.type}${options.publish ? ` --publish ${options.publish}` : ''}`,
    ].join('\n'),
  );
  return 130;
}

/** CSV rows as records of `typeName`, each cell converted by its field's declared type. */
async function typedCsvRecords(
  site: SiteCommandDeps['site'],
  typeName: string,
  rows: Record<string, string>[],
): Promise<Record<string, unknown>[]> {
  const type = await site.types.get(typeName);
  return rows.map((cells) => recordFromCsvRow({ type, cells }));
}

export interface ImportEdgesCommandOptions {
  file: string;
  format?: string;
  batchSize?: number;
  callSize?: number;
  errorsFile?: string;
}

/**
 * `cms import edges <file>`: edges `{from, edge, to, props?}` as JSON (an array or
 * `{edges: [...]}`), NDJSON, or CSV with `from,edge,to` columns (other columns become
 * props). Exits 4 when some edges failed.
 */
export async function importEdges({
  site,
  out,
  io,
  ...options
}: SiteCommandDeps & ImportEdgesCommandOptions): Promise<number> {
  const rows = await readRecords({
    fs: io.fs,
    cwd: io.cwd,
    file: options.file,
    format: options.format,
    key: 'edges',
  });
  const isCsv = formatOf(options.file, options.format) === 'csv';
  const edges = rows.map((row, index) => toEdge(row, index, options.file, isCsv));
  const result = await sendEdges(site, io, edges, {
    batchSize: options.batchSize,
    callSize: options.callSize,
  });
  const errorsFile =
    result.errors.length > 0
      ? await writeErrors(io.fs, io.cwd, options.errorsFile ?? defaultErrorsFile(options.file), result.errors)
      : null;
  out.result({ ...result, errorsFile }, () => [
    `Imported ${result.totalEdges} edge(s) in ${seconds(result.tookMs)}: ${result.merged} merged, ` +
      `${result.mismatch} skipped (an end does not exist), ${result.failed} failed ` +
      `(${result.edgesPerSec} edges/s, ${result.calls} request(s)).`,
    ...(errorsFile ? [`Errors written to ${errorsFile}.`, ...firstErrors(result.errors)] : []),
  ]);
  return result.failed > 0 ? ExitCode.partial : ExitCode.ok;
}

/** Sends edges with a progress bar (`cms import edges`, and the edges of a multi-type import). */
export async function sendEdges(
  site: SiteCommandDeps['site'],
  io: SiteCommandDeps['io'],
  edges: EdgeTriple[],
  options: { batchSize?: number; callSize?: number },
): Promise<Awaited<ReturnType<SiteCommandDeps['site']['import']['allEdges']>>> {
  const progress = createProgress({
    stderr: io.stderr,
    label: 'edges',
    total: edges.length,
    createdLabel: 'merged',
  });
  try {
    return await site.import.allEdges({
      edges,
      batchSize: options.batchSize,
      callSize: options.callSize,
      onProgress: (p) => progress.update(p),
    });
  } finally {
    progress.stop();
  }
}

/** An edge from a row; the other columns of a CSV row are its props (see propValueFromCell). */
export function toEdge(
  row: Record<string, unknown>,
  index: number,
  file: string,
  isCsv: boolean,
): EdgeTriple {
  const { from, edge, to, props, ...rest } = row;
  if (typeof from !== 'string' || typeof edge !== 'string' || typeof to !== 'string') {
    throw new UsageError(`${file}: edge ${index} needs string "from", "edge" and "to"`);
  }
  if (isCsv) for (const key in rest) rest[key] = propValueFromCell(String(rest[key]));
  const extra = Object.keys(rest).length > 0 ? rest : undefined;
  const merged =
    props && typeof props === 'object' ? { ...(props as Record<string, unknown>), ...extra } : extra;
  return merged ? { from, edge, to, props: merged } : { from, edge, to };
}

function defaultErrorsFile(input: string): string {
  return `${basename(input).replace(/\.[^.]+$/, '')}.errors.ndjson`;
}

async function writeErrors(fs: Fs, cwd: string, file: string, errors: object[]): Promise<string> {
  const path = resolve(cwd, file);
  await fs.writeFile(path, `${errors.map((error) => JSON.stringify(error)).join('\n')}\n`);
  return path;
}

function firstErrors(errors: { index: number; id?: string; error: string }[]): string[] {
  const shown = errors
    .slice(0, 5)
    .map((error) => `  #${error.index}${error.id ? ` ${error.id}` : ''}: ${error.error}`);
  return errors.length > 5 ? [...shown, `  … and ${errors.length - 5} more`] : shown;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
