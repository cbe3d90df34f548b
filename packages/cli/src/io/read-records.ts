import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { UsageError } from '../errors';
import type { Fs } from './cli-io';
import { jsonErrorMessage, readText } from './read-json-file';

/** The input formats of `cms import` (the choices of its `--format`). */
export const RECORD_FORMATS = ['json', 'ndjson', 'csv'] as const;
export type RecordFormat = (typeof RECORD_FORMATS)[number];

const isRecordFormat = (format: string | undefined): format is RecordFormat =>
  (RECORD_FORMATS as readonly (string | undefined)[]).includes(format);

/** The format of `file` from `--format`, else its extension (`.json`, `.ndjson`/`.jsonl`, `.csv`). */
export function formatOf(file: string, format: string | undefined): RecordFormat {
  const chosen =
    format ??
    { '.json': 'json', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.csv': 'csv' }[extname(file).toLowerCase()];
  if (isRecordFormat(chosen)) return chosen;
  throw new UsageError(
    format
      ? `Unknown --format ${format}: use json, ndjson or csv.`
      : `Cannot tell the format of ${file}: pass --format json|ndjson|csv.`,
  );
}

/** A CSV row that could not be read (wrong number of cells, a bad quote): it goes to the errors file. */
export interface RejectedRow {
  /** 1-based line of the file where the row starts. */
  line: number;
  error: string;
  raw: string | null;
}

/**
 * Parses `text` into objects:
 * - json: an array; or an object with an array under `key` (`records`, `edges`); or, when
 *   that is an object of arrays, the array under `pick` (e.g. `records.country`);
 * - ndjson: one object per non-empty line;
 * - csv: a header row, then one object per row, each cell as text (trimmed; empty cells left
 *   out). Cells are not converted here: records get their types from the content type's
 *   fields (core `recordFromCsvRow`), edge props from {@link propValueFromCell}.
 */
export function parseRecords({
  text,
  format,
  file,
  key,
  pick,
  rejected,
}: {
  text: string;
  format: RecordFormat;
  file: string;
  key: 'records' | 'edges';
  pick?: string;
  /** When given, CSV rows that cannot be read are put here instead of failing the whole file. */
  rejected?: RejectedRow[];
}): Record<string, unknown>[] {
  if (format === 'csv') {
    try {
      const rows: Record<string, unknown>[] = parse(text, {
        columns: true,
        skip_empty_lines: true,
        trim: true,
        bom: true,
        ...(rejected
          ? {
              skip_records_with_error: true,
              on_skip: (error: { message: string; lines?: number } | undefined) => {
                const line = error?.lines ?? 0;
                const raw = line > 0 ? (text.split(/\r?\n/)[line - 1] ?? null) : null;
                rejected.push({ line, error: error?.message ?? 'unreadable row', raw });
                return undefined;
              },
            }
          : {}),
      });
      return rows.map((row) => Object.fromEntries(Object.entries(row).filter(([, value]) => value !== '')));
    } catch (error) {
      throw new UsageError(`${file}: not valid CSV: ${(error as Error).message}`);
    }
  }
  if (format === 'ndjson') {
    const rows: Record<string, unknown>[] = [];
    for (const [index, line] of text.split(/\r?\n/).entries()) {
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new UsageError(
          `${file} line ${index + 1}: not valid JSON: ${jsonErrorMessage(line, error).replace(/^line 1, /, '')}`,
        );
      }
      if (!isObject(value))
        throw new UsageError(`${file} line ${index + 1}: each line must be a JSON object`);
      rows.push(value);
    }
    return rows;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON at ${jsonErrorMessage(text, error)}`);
  }
  let list: unknown = value;
  if (isObject(value) && key in value) {
    list = value[key];
    if (isObject(list) && pick !== undefined) {
      if (!(pick in list)) {
        throw new UsageError(`${file}: "${key}" has no "${pick}" (it has: ${Object.keys(list).join(', ')})`);
      }
      list = list[pick];
    }
  }
  if (!Array.isArray(list)) {
    throw new UsageError(`${file}: expected an array of objects, or an object with a "${key}" array`);
  }
  for (const [index, entry] of list.entries()) {
    if (!isObject(entry)) throw new UsageError(`${file}: entry ${index} is not a JSON object`);
  }
  return list as Record<string, unknown>[];
}

/** Reads and parses an import file (see {@link parseRecords}). */
export async function readRecords(options: {
  fs: Fs;
  cwd: string;
  file: string;
  format?: string;
  key: 'records' | 'edges';
  pick?: string;
  rejected?: RejectedRow[];
}): Promise<Record<string, unknown>[]> {
  const format = formatOf(options.file, options.format);
  const text = await readText(options.fs, options.cwd, options.file);
  return parseRecords({
    text,
    format,
    file: options.file,
    key: options.key,
    pick: options.pick,
    rejected: options.rejected,
  });
}

/**
 * A CSV cell of an edge's props column: props have no declared types, so a cell that reads
 * back as the same number (`418`, not `007`) or is `true`/`false` becomes that JSON value;
 * anything else stays text. (Record cells are converted by their field's type instead.)
 */
export function propValueFromCell(value: string): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^-?(0|[1-9]\d{0,14})(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
