import { join, resolve } from 'node:path';
import { UsageError } from '../errors';
import type { Fs } from './cli-io';
import { readJsonFile } from './read-json-file';

/**
 * Reads definitions from a `.json` file or a folder of them (in file-name order). A file
 * holds one definition, an array of them, or an object with an array under `key` (as a
 * fixture or an export does). Every definition needs a string `idField`.
 */
export async function readDefinitions<T>({
  fs,
  cwd,
  target,
  key,
  idField,
}: {
  fs: Fs;
  cwd: string;
  target: string;
  key: string;
  idField: string;
}): Promise<T[]> {
  const absolute = resolve(cwd, target);
  let isDirectory: boolean;
  try {
    isDirectory = (await fs.stat(absolute)).isDirectory();
  } catch {
    throw new UsageError(`Cannot read ${target}: no such file or folder`);
  }
  const files = isDirectory
    ? (await fs.readdir(absolute))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => join(absolute, name))
    : [absolute];
  if (files.length === 0) throw new UsageError(`No .json files in ${target}`);
  const definitions: T[] = [];
  for (const file of files) {
    const value = await readJsonFile(fs, cwd, file);
    const list = Array.isArray(value)
      ? value
      : typeof value === 'object' && value !== null && Array.isArray((value as Record<string, unknown>)[key])
        ? ((value as Record<string, unknown>)[key] as unknown[])
        : [value];
    for (const entry of list) {
      if (
        typeof entry !== 'object' ||
        entry === null ||
        typeof (entry as Record<string, unknown>)[idField] !== 'string'
      ) {
        throw new UsageError(`${file}: every definition needs a "${idField}"`);
      }
      definitions.push(entry as T);
    }
  }
  return definitions;
}
