import * as fs from 'node:fs/promises';
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
  { env = {}, cwd }: { env?: Record<string, string | undefined>; cwd: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = capture();
  const stderr = capture();
  const code = await run(argv, { stdout, stderr, env, fs, cwd });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
