import type * as fsPromises from 'node:fs/promises';

/** A place text is written to: `process.stdout`, `process.stderr`, or a test buffer. */
export interface TextSink {
  write(chunk: string): unknown;
  /** True when a person is watching a terminal (progress bars, colours). */
  isTTY?: boolean;
  columns?: number;
}

/** The file-system calls commands use, so tests can pass a real temp dir or a fake. */
export type Fs = Pick<typeof fsPromises, 'readFile' | 'writeFile' | 'readdir' | 'mkdir' | 'stat' | 'chmod'>;

/** Where text is read from: `process.stdin`, or a test's canned input. */
export interface TextSource {
  /** True when a person is typing at a terminal. */
  isTTY?: boolean;
  /** Reads everything up to the end of the input. */
  readAll(): Promise<string>;
  /** Asks `prompt` on the terminal and reads one line without echoing it (for secrets). */
  readSecret(prompt: string): Promise<string>;
}

/** Everything a command touches outside itself. */
export interface CliIo {
  stdout: TextSink;
  stderr: TextSink;
  env: Record<string, string | undefined>;
  fs: Fs;
  /** The directory relative paths are resolved from. */
  cwd: string;
  /** Standard input (`cms login --key-stdin`, the key prompt); absent means none. */
  stdin?: TextSource;
  /** The fetch the SDK uses; the global one by default. */
  fetch?: typeof fetch;
  /**
   * Calls `handler` on Ctrl-C (SIGINT) instead of ending the process, until the returned
   * function is called; a second Ctrl-C ends the process. Absent: Ctrl-C ends it at once.
   */
  onInterrupt?: (handler: () => void) => () => void;
}
