import { join } from 'node:path';
import type { SiteClient } from '@trelliscms/sdk';
import { ExitCode } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import type { Output } from '../../io/output';
import { FOLDERS, filesIn, jsonText, readBinding, TEMPLATES_MANIFEST, writeBinding } from './site-folder';

/** A name that is safe as a file name (types, templates and routes are named so). */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Drops what the server adds (timestamps, versions) so a pulled file pushes back unchanged. */
function withoutServerFields<T extends Record<string, unknown>>(value: T): Record<string, unknown> {
  const { createdAt: _c, updatedAt: _u, ...rest } = value;
  return rest;
}

/**
 * `cms pull [dir]`: writes the site's types (`types/<name>.json`), templates
 * (`templates/<name>.liquid` and their bindings in `templates/templates.json`) and routes
 * (`routes/<slug>.json`) into the folder, and `trellis.json` when it has none. Files of
 * resources the site no longer has are listed, not deleted.
 */
export async function pull({
  io,
  out,
  site,
  dir,
}: {
  io: CliIo;
  out: Output;
  site: SiteClient;
  dir: string;
}): Promise<number> {
  const [summaries, templates, routes] = await Promise.all([
    site.types.list(),
    site.templates.list(),
    site.routes.list(),
  ]);
  const types = await Promise.all(summaries.map((summary) => site.types.get(summary.name)));
  await io.fs.mkdir(dir, { recursive: true });
  const hadBinding = (await readBinding(io.fs, dir)) !== undefined;
  if (!hadBinding) await writeBinding(io.fs, dir, { site: site.id });

  const written = { types: [] as string[], templates: [] as string[], routes: [] as string[] };
  const stale: string[] = [];

  const typesDir = join(dir, FOLDERS.types);
  await io.fs.mkdir(typesDir, { recursive: true });
  for (const type of types.filter((entry) => SAFE_NAME.test(entry.name))) {
    await io.fs.writeFile(join(typesDir, `${type.name}.json`), jsonText(withoutServerFields(type)));
    written.types.push(type.name);
  }
  stale.push(
    ...(await staleFiles(io, typesDir, '.json', written.types)).map((file) => `${FOLDERS.types}/${file}`),
  );

  const templatesDir = join(dir, FOLDERS.templates);
  await io.fs.mkdir(templatesDir, { recursive: true });
  const manifest: Record<string, { boundType?: string; enabled?: boolean }> = {};
  for (const template of templates.filter((entry) => SAFE_NAME.test(entry.name))) {
    await io.fs.writeFile(join(templatesDir, `${template.name}.liquid`), template.content);
    const entry: { boundType?: string; enabled?: boolean } = {};
    if (template.boundType) entry.boundType = template.boundType;
    if (template.enabled === false) entry.enabled = false;
    if (Object.keys(entry).length > 0) manifest[template.name] = entry;
    written.templates.push(template.name);
  }
  await io.fs.writeFile(join(templatesDir, TEMPLATES_MANIFEST), jsonText(manifest));
  stale.push(
    ...(await staleFiles(io, templatesDir, '.liquid', written.templates)).map(
      (file) => `${FOLDERS.templates}/${file}`,
    ),
  );

  const routesDir = join(dir, FOLDERS.routes);
  await io.fs.mkdir(routesDir, { recursive: true });
  for (const route of routes.filter((entry) => SAFE_NAME.test(entry.slug))) {
    await io.fs.writeFile(join(routesDir, `${route.slug}.json`), jsonText(withoutServerFields(route)));
    written.routes.push(route.slug);
  }
  stale.push(
    ...(await staleFiles(io, routesDir, '.json', written.routes)).map((file) => `${FOLDERS.routes}/${file}`),
  );

  out.result({ ok: true, site: site.id, dir, ...written, notOnServer: stale }, () => [
    `Pulled ${site.id} into ${dir}: ${written.types.length} type(s), ${written.templates.length} template(s), ${written.routes.length} route(s).`,
    ...(hadBinding ? [] : [`Wrote trellis.json (bound to ${site.id}).`]),
    ...(stale.length > 0
      ? [`Not on the server (left as they are; delete them or cms push them): ${stale.join(', ')}`]
      : []),
  ]);
  return ExitCode.ok;
}

async function staleFiles(io: CliIo, folder: string, ext: string, names: string[]): Promise<string[]> {
  const known = new Set(names.map((name) => `${name}${ext}`));
  return (await filesIn(io.fs, folder, ext)).filter((file) => !known.has(file));
}
