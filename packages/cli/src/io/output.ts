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

/** Lays rows out as aligned columns with a header. */
export function table(rows: Record<string, unknown>[], columns: string[]): string[] {
  if (rows.length === 0) return ['(none)'];
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, index) =>
    Math.min(60, Math.max(column.length, ...cells.map((line) => line[index]?.length ?? 0))),
  );
  const render = (line: string[]) =>
    line
      .map((value, index) => (index === line.length - 1 ? value : value.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  return [render(columns.map((column) => column.toUpperCase())), ...cells.map(render)];
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
