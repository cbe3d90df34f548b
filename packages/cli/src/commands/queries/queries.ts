import type { CreateSavedQueryBody, UpdateSavedQueryBody } from '@trelliscms/core';
import { ExitCode, UsageError } from '../../errors';
import { table } from '../../io/output';
import { readJsonFile } from '../../io/read-json-file';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms queries list`: the saved queries of the site. */
export async function queriesList({ site, out }: Deps): Promise<number> {
  const queries = await site.queries.list();
  const rows = queries.map((saved) => ({
    name: saved.name,
    type: saved.query.type,
    params: Object.keys(saved.params ?? {}).join(', '),
    description: saved.description ?? '',
  }));
  out.result(queries, () => table(rows, ['name', 'type', 'params', 'description']));
  return ExitCode.ok;
}

/** `cms queries show <name>`: one saved query, as JSON. */
export async function queriesShow({ site, out, name }: Deps & { name: string }): Promise<number> {
  const saved = await site.queries.get(name);
  out.result(saved, () => JSON.stringify(saved, null, 2));
  return ExitCode.ok;
}

/** Reads a JSON file holding one saved query (`{name?, description?, query, params?}`). */
async function readQueryFile(
  { io }: Pick<SiteCommandDeps, 'io'>,
  file: string,
): Promise<Record<string, unknown>> {
  const value = await readJsonFile(io.fs, io.cwd, file);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${file} must hold one saved query: {"name", "query": {...}, "params": {...}}`);
  }
  return value as Record<string, unknown>;
}

/** `cms queries create <file> [--name <name>]`: stores the saved query of a JSON file. */
export async function queriesCreate({
  site,
  out,
  io,
  file,
  name,
}: SiteCommandDeps & { file: string; name?: string }): Promise<number> {
  const body = await readQueryFile({ io }, file);
  if (name) body.name = name;
  if (typeof body.name !== 'string')
    throw new UsageError(`${file} has no "name": give one there or with --name`);
  const saved = await site.queries.create(body as CreateSavedQueryBody);
  out.result(saved, () => `Created saved query ${saved.name}.`);
  return ExitCode.ok;
}

/** `cms queries update <name> <file>`: replaces the keys the JSON file gives (`query`, `params`, `description`). */
export async function queriesUpdate({
  site,
  out,
  io,
  name,
  file,
}: SiteCommandDeps & { name: string; file: string }): Promise<number> {
  const {
    name: _name,
    createdAt: _createdAt,
    updatedAt: _updatedAt,
    ...patch
  } = await readQueryFile({ io }, file);
  const saved = await site.queries.update(name, patch as UpdateSavedQueryBody);
  out.result(saved, () => `Updated saved query ${saved.name}.`);
  return ExitCode.ok;
}

/** `cms queries rm <name>` */
export async function queriesDelete({ site, out, name }: Deps & { name: string }): Promise<number> {
  await site.queries.delete(name);
  out.result({ ok: true, query: name }, () => `Deleted saved query ${name}.`);
  return ExitCode.ok;
}

/** Reads `--param k=v` options into an object; the server types each value by the query's declarations. */
export function parseParams(pairs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--param ${pair}: write name=value`);
    params[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return params;
}

/** `cms queries run <name> --param k=v ...`: runs a saved query and shows its rows. */
export async function queriesRun({
  site,
  out,
  name,
  params,
  limit,
  offset,
}: Deps & { name: string; params: readonly string[]; limit?: number; offset?: number }): Promise<number> {
  const result = await site.queries.run(name, { params: parseParams(params), limit, offset });
  out.result(result, () => {
    const columns = [...new Set(result.items.flatMap((row) => Object.keys(row)))];
    const shown = `${result.count} of ${result.total} row(s) (offset ${result.offset}, ${result.tookMs} ms)`;
    return [...table(result.items, columns), shown];
  });
  return ExitCode.ok;
}
