import type { TextSink } from './cli-io';

/**
 * Where a command's results go. With `--json` a command prints one JSON document on
 * stdout; otherwise lines for a person. Notes and progress go to stderr either way, so
 * stdout stays clean for pipes.
 */
export class Output {
  readonly isJson: boolean;
  readonly stdout: TextSink;
  readonly stderr: TextSink;

  constructor({ stdout, stderr, json }: { stdout: TextSink; stderr: TextSink; json: boolean }) {
    this.stdout = stdout;
    this.stderr = stderr;
    this.isJson = json;
  }

  /** Prints `value` as JSON with `--json`, else the lines `human` gives. */
  result(value: unknown, human: () => string | string[]): void {
    if (this.isJson) {
      this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      return;
    }
    const text = human();
    const lines = Array.isArray(text) ? text : [text];
    if (lines.length > 0) this.stdout.write(`${lines.join('\n')}\n`);
  }

  /** A note for a person on stderr (not printed with `--json`). */
  note(message: string): void {
    if (!this.isJson) this.stderr.write(`${message}\n`);
  }
}

/** A column of {@link table}: a row key (its header is the key in words), or `[key, header]`. */
export type Column = string | readonly [key: string, header: string];

/**
 * Lays rows out as aligned columns under a header. Headers read as words: the key
 * `publicUrl` is headed `PUBLIC URL`; `[key, header]` gives its own header (`''` for a mark
 * column such as the current site's `*`).
 */
export function table(rows: Record<string, unknown>[], columns: readonly Column[]): string[] {
  if (rows.length === 0) return ['(none)'];
  const keys = columns.map((column) => (typeof column === 'string' ? column : column[0]));
  const headers = columns.map((column) => (typeof column === 'string' ? headerOf(column) : column[1]));
  const cells = rows.map((row) => keys.map((key) => cell(row[key])));
  const widths = headers.map((header, index) =>
    Math.min(60, Math.max(header.length, ...cells.map((line) => line[index]?.length ?? 0))),
  );
  const render = (line: string[]) =>
    line
      .map((value, index) => (index === line.length - 1 ? value : value.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  return [render(headers), ...cells.map(render)];
}

/** `latestVersion` as `LATEST VERSION`, `siteId` as `SITE ID`, `envId` as `ENV ID`. */
export function headerOf(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toUpperCase();
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
