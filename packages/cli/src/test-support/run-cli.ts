import * as fs from 'node:fs/promises';
import type { TextSource } from '../io/cli-io';
import { run } from '../program';

/** A text sink that keeps what was written. */
export interface Capture {
  text: string;
  isTTY: boolean;
  write(chunk: string): boolean;
}

export function capture(isTTY = false): Capture {
  return {
    text: '',
    isTTY,
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

/** Runs `cms` in-process with captured streams, a temp config dir and `cwd`. */
export async function runCli(
  argv: string[],
  {
    env = {},
    cwd,
    stdin,
    onInterrupt,
    tty = false,
  }: {
    env?: Record<string, string | undefined>;
    cwd: string;
    /** Standard input (see {@link cannedStdin}); none by default. */
    stdin?: TextSource;
    /** Stands in for Ctrl-C: see CliIo.onInterrupt. */
    onInterrupt?: (handler: () => void) => () => void;
    /** Whether stderr is a terminal. */
    tty?: boolean;
  },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = capture();
  const stderr = capture(tty);
  const code = await run(argv, { stdout, stderr, env, fs, cwd, onInterrupt, ...(stdin ? { stdin } : {}) });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Standard input that holds `text` (a pipe), or a terminal whose hidden prompt answers `typed`. */
export function cannedStdin({ text = '', typed }: { text?: string; typed?: string }): TextSource & {
  prompts: string[];
} {
  const prompts: string[] = [];
  return {
    isTTY: typed !== undefined,
    prompts,
    readAll: async () => text,
    readSecret: async (prompt) => {
      prompts.push(prompt);
      return typed ?? '';
    },
  };
}
