import type { ContentRecord, ContentStatus } from '@trelliscms/core';
import { ExitCode, UsageError } from '../../errors';
import { table } from '../../io/output';
import { parseJsonObject, readJsonFile } from '../../io/read-json-file';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** The full id `<type>:<slug>` of an item, from either the full id or the bare slug. */
export function fullId(type: string, id: string): string {
  return id.startsWith(`${type}:`) ? id : `${type}:${id}`;
}

const rows = (items: ContentRecord[]) =>
  table(
    items.map((item) => ({
      id: item.id,
      status: item.status ?? '',
      title: item.fields.title ?? item.fields.name ?? '',
      updatedAt: item.updatedAt ?? '',
    })),
    ['id', 'status', 'title', 'updatedAt'],
  );

export interface ContentListOptions {
  type: string;
  limit?: number;
  offset?: number;
  q?: string;
  status?: ContentStatus;
  /** Field conditions in the list language, e.g. `year >= 2000 and featured == true`. */
  where?: string;
  /** Sort keys, e.g. `-year,title`. */
  sort?: string;
  /** Fetch every match, page by page. */
  all: boolean;
  pageSize?: number;
}

/** `cms content list <type>`: one page (default 50) with the total, or `--all`. */
export async function contentList({ site, out, ...options }: Deps & ContentListOptions): Promise<number> {
  if (options.all) {
    const items: ContentRecord[] = [];
    for await (const item of site.content.iterate(options.type, {
      pageSize: options.pageSize ?? 200,
      q: options.q,
      status: options.status,
      where: options.where,
      sort: options.sort,
    })) {
      items.push(item);
    }
    out.result(items, () => [...rows(items), `${items.length} item(s)`]);
    return ExitCode.ok;
  }
  const page = await site.content.page(options.type, {
    limit: options.limit ?? 50,
    offset: options.offset ?? 0,
    q: options.q,
    status: options.status,
    where: options.where,
    sort: options.sort,
  });
  out.result(page, () => {
    const from = page.items.length === 0 ? 0 : (options.offset ?? 0) + 1;
    const to = (options.offset ?? 0) + page.items.length;
    return [...rows(page.items), `${from}-${to} of ${page.total}`];
  });
  return ExitCode.ok;
}

/** `cms content get <type> <id>` */
export async function contentGet({
  site,
  out,
  type,
  id,
}: Deps & { type: string; id: string }): Promise<number> {
  const item = await site.content.get(type, fullId(type, id));
  out.result(item, () => JSON.stringify(item, null, 2));
  return ExitCode.ok;
}

/** The body of a write: `--data '<json>'` or `--file item.json`, exactly one. */
export async function readItemBody({
  io,
  data,
  file,
}: Pick<SiteCommandDeps, 'io'> & { data?: string; file?: string }): Promise<Record<string, unknown>> {
  if ((data === undefined) === (file === undefined)) {
    throw new UsageError('Give the item as --data \'{"title":"Hello"}\' or --file item.json (one of them).');
  }
  if (data !== undefined) return parseJsonObject(data, '--data');
  const value = await readJsonFile(io.fs, io.cwd, file!);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${file} must hold one JSON object`);
  }
  return value as Record<string, unknown>;
}

/** `cms content create <type>` */
export async function contentCreate({
  site,
  out,
  type,
  body,
}: Deps & { type: string; body: Record<string, unknown> }): Promise<number> {
  const item = await site.content.create(type, body);
  out.result(item, () => `Created ${item.id}.`);
  return ExitCode.ok;
}

/** `cms content update <type> <id>`: given fields replace the stored ones. */
export async function contentUpdate({
  site,
  out,
  type,
  id,
  body,
}: Deps & { type: string; id: string; body: Record<string, unknown> }): Promise<number> {
  const item = await site.content.update(type, fullId(type, id), body);
  out.result(item, () => `Updated ${item.id}${item.version ? ` (version ${item.version})` : ''}.`);
  return ExitCode.ok;
}

/** `cms content delete <type> <id>` */
export async function contentDelete({
  site,
  out,
  type,
  id,
}: Deps & { type: string; id: string }): Promise<number> {
  const full = fullId(type, id);
  await site.content.delete(type, full);
  out.result({ ok: true, id: full }, () => `Deleted ${full}.`);
  return ExitCode.ok;
}

/** `cms content publish <type> <id> [--env e]`: publishes to `env` (the server's default is prod). */
export async function contentPublish({
  site,
  out,
  type,
  id,
  env,
}: Deps & { type: string; id: string; env?: string }): Promise<number> {
  const full = fullId(type, id);
  const answer = await site.content.publish(type, full, env ? { env } : {});
  out.result(
    answer,
    () =>
      `Published ${full}${env ? ` to ${env}` : ''}${answer.version ? ` (version ${answer.version})` : ''}.`,
  );
  return ExitCode.ok;
}

/** `cms content versions <type> <id>`: the item's recorded versions, newest first. */
export async function contentVersions({
  site,
  out,
  type,
  id,
}: Deps & { type: string; id: string }): Promise<number> {
  const versions = await site.content.versions(type, fullId(type, id));
  out.result(versions, () =>
    table(
      versions.map((version) => ({ ...version, hash: version.hash.slice(0, 12) })),
      ['version', 'status', 'action', 'actor', 'at', 'hash'],
    ),
  );
  return ExitCode.ok;
}
