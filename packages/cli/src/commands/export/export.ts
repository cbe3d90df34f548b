import { dirname, resolve } from 'node:path';
import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';

/**
 * `cms export [file]`: the site as one JSON document (GET /api/export: types, items, edges,
 * templates, routes, views, transforms, settings) written to `file`, or to stdout without one.
 * `cms-build --snapshot <file>` builds the same pages from it.
 */
export async function exportSite({
  site,
  out,
  io,
  file,
}: Pick<SiteCommandDeps, 'site' | 'out' | 'io'> & { file?: string }): Promise<number> {
  const snapshot = await site.export.snapshot();
  const text = `${JSON.stringify(snapshot, null, 2)}\n`;
  if (!file || file === '-') {
    out.stdout.write(text);
    return ExitCode.ok;
  }
  const target = resolve(io.cwd, file);
  await io.fs.mkdir(dirname(target), { recursive: true });
  await io.fs.writeFile(target, text);
  const summary = {
    ok: true,
    file: target,
    bytes: Buffer.byteLength(text),
    types: snapshot.types.length,
    items: snapshot.items.length,
    edges: snapshot.edges.length,
    templates: snapshot.templates.length,
    routes: snapshot.routes.length,
    exportedAt: snapshot.exportedAt,
  };
  out.result(summary, () => [
    `Exported ${snapshot.site.id} to ${target} (${summary.bytes} bytes):`,
    `  ${summary.types} type(s), ${summary.items} item(s), ${summary.edges} edge(s), ${summary.templates} template(s), ${summary.routes} route(s).`,
    `Build from it offline: cms-build --snapshot ${file}`,
  ]);
  return ExitCode.ok;
}
