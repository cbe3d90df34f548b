import { resolve } from 'node:path';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms leads list`: one page of the site's leads, newest first. */
export async function leadsList({
  site,
  out,
  limit,
  offset,
}: Deps & { limit?: number; offset?: number }): Promise<number> {
  const page = await site.leads.list({ limit, offset });
  out.result(page, () => [
    ...table(page.items, ['id', 'createdAt', 'name', 'email', 'message']),
    `${page.items.length} of ${page.total} lead(s).`,
  ]);
  return ExitCode.ok;
}

/** `cms leads export [file]`: every lead as CSV, to `file` or stdout. */
export async function leadsExport({
  site,
  out,
  io,
  file,
}: Deps & Pick<SiteCommandDeps, 'io'> & { file?: string }): Promise<number> {
  const csv = await site.leads.exportCsv();
  if (!file || file === '-') {
    out.stdout.write(csv);
    return ExitCode.ok;
  }
  const target = resolve(io.cwd, file);
  await io.fs.writeFile(target, csv);
  const rows = Math.max(0, csv.split('\r\n').filter(Boolean).length - 1);
  out.result(
    { ok: true, file: target, leads: rows },
    () => `Exported ${rows} lead(s) of ${site.id} to ${target}.`,
  );
  return ExitCode.ok;
}

/** `cms leads rm <id>`: deletes a lead. */
export async function leadsRemove({ site, out, id }: Deps & { id: string }): Promise<number> {
  await site.leads.delete(id);
  out.result({ ok: true, id }, () => `Deleted ${id}.`);
  return ExitCode.ok;
}
