import { join, resolve } from 'node:path';
import type { ContentTypeInput } from '@trelliscms/sdk';
import { ExitCode, UsageError } from '../errors';
import type { Fs } from '../io/cli-io';
import { table } from '../io/output';
import { readJsonFile } from '../io/read-json-file';
import type { SiteCommandDeps } from './context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms types list` */
export async function typesList({ site, out }: Deps): Promise<number> {
  const types = await site.types.list();
  out.result(types, () =>
    table(types, ['name', 'label', 'fieldCount', 'relationshipCount', 'routePattern', 'emitPages']),
  );
  return ExitCode.ok;
}

/** `cms types get <name>`: the full definition as JSON. */
export async function typesGet({ site, out, name }: Deps & { name: string }): Promise<number> {
  const type = await site.types.get(name);
  out.result(type, () => JSON.stringify(type, null, 2));
  return ExitCode.ok;
}

/**
 * Reads type definitions from a file or a folder of `.json` files. A file holds one
 * definition, an array of them, or an object with a `types` array (as a fixture or an
 * export does).
 */
export async function readTypeDefinitions(fs: Fs, cwd: string, target: string): Promise<ContentTypeInput[]> {
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
  const definitions: ContentTypeInput[] = [];
  for (const file of files) {
    const value = await readJsonFile(fs, cwd, file);
    const list = Array.isArray(value)
      ? value
      : typeof value === 'object' && value !== null && Array.isArray((value as { types?: unknown }).types)
        ? (value as { types: unknown[] }).types
        : [value];
    for (const entry of list) {
      if (
        typeof entry !== 'object' ||
        entry === null ||
        typeof (entry as { name?: unknown }).name !== 'string'
      ) {
        throw new UsageError(`${file}: every type definition needs a "name"`);
      }
      definitions.push(entry as ContentTypeInput);
    }
  }
  return definitions;
}

/**
 * `cms types apply <file-or-folder>`: creates each type that does not exist and PATCHes the
 * others, in file order (so referenced types can come first). Safe to run again.
 */
export async function typesApply({
  site,
  out,
  io,
  target,
}: SiteCommandDeps & { target: string }): Promise<number> {
  const definitions = await readTypeDefinitions(io.fs, io.cwd, target);
  const results: { name: string; action: string }[] = [];
  for (const definition of definitions) {
    const { action } = await site.types.apply(definition);
    results.push({ name: definition.name, action });
    out.note(`${action === 'created' ? 'created' : 'updated'} ${definition.name}`);
  }
  out.result({ ok: true, types: results }, () => {
    const created = results.filter((result) => result.action === 'created').length;
    return `Applied ${results.length} type(s): ${created} created, ${results.length - created} updated.`;
  });
  return ExitCode.ok;
}
