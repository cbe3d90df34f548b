import { resolve } from 'node:path';
import { UsageError } from '../errors';
import type { Fs } from './cli-io';

/** Reads a file as text; a missing or unreadable file is a usage error. */
export async function readText(fs: Fs, cwd: string, file: string): Promise<string> {
  try {
    return await fs.readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Reads and parses a JSON file; bad JSON is a usage error naming the file. */
export async function readJsonFile(fs: Fs, cwd: string, file: string): Promise<unknown> {
  const text = await readText(fs, cwd, file);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${jsonErrorMessage(text, error)}`);
  }
}

/** Parses a `--data` JSON argument, which must be an object. */
export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * A JSON parse error as `line L, column C: message`, from the position V8 reports (`…at
 * position 16`): a person finds the mistake in an editor, not by counting characters.
 */
export function jsonErrorMessage(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const match = /at position (\d+)/.exec(message);
  if (!match) return message;
  const position = Number(match[1]);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  const plain = message.replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?/, '');
  return `line ${line}, column ${column}: ${plain}`;
}
