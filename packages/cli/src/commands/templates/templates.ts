import { join, resolve } from 'node:path';
import type { Template } from '@trelliscms/core';
import { isApiError } from '@trelliscms/sdk';
import { ExitCode, UsageError } from '../../errors';
import type { Fs } from '../../io/cli-io';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

/** The optional manifest beside the `.liquid` files: per template, its bound type and whether it is enabled. */
export const MANIFEST = 'templates.json';
type Manifest = Record<string, { boundType?: string; enabled?: boolean }>;

/** `cms templates list` */
export async function templatesList({ site, out }: Pick<SiteCommandDeps, 'site' | 'out'>): Promise<number> {
  const templates = await site.templates.list();
  out.result(
    templates.map(({ content: _content, ...meta }) => meta),
    () => table(templates, ['name', 'boundType', 'version', 'latestVersion', 'enabled', 'updatedAt']),
  );
  return ExitCode.ok;
}

/**
 * `cms templates push <dir>`: every `<name>.liquid` in `dir` becomes template `<name>`
 * (created, or a new version when its source or binding changed; unchanged ones are left
 * alone). `templates.json` in `dir` may give `{"<name>": {"boundType": "post"}}`.
 */
export async function templatesPush({
  site,
  out,
  io,
  dir,
  dryRun = false,
}: SiteCommandDeps & { dir: string; dryRun?: boolean }): Promise<number> {
  const folder = resolve(io.cwd, dir);
  let names: string[];
  try {
    names = (await io.fs.readdir(folder)).filter((name) => name.endsWith('.liquid')).sort();
  } catch {
    throw new UsageError(`Cannot read the folder ${dir}`);
  }
  if (names.length === 0) throw new UsageError(`No .liquid files in ${dir}`);
  const manifest = await readManifest(io.fs, folder);
  const existing = new Map((await site.templates.list()).map((template) => [template.name, template]));
  const results: { name: string; action: 'created' | 'updated' | 'unchanged'; version: number }[] = [];
  for (const file of names) {
    const name = file.slice(0, -'.liquid'.length);
    const content = await io.fs.readFile(join(folder, file), 'utf8');
    const settings = manifest[name] ?? {};
    const current = existing.get(name);
    let template: Template;
    let action: 'created' | 'updated' | 'unchanged';
    if (!current) {
      template = dryRun
        ? { name, content, version: 0, ...settings }
        : await site.templates.create({ name, content, ...settings });
      action = 'created';
    } else if (
      current.content === content &&
      (settings.boundType === undefined || settings.boundType === (current.boundType ?? '')) &&
      (settings.enabled === undefined || settings.enabled === (current.enabled ?? true))
    ) {
      template = current;
      action = 'unchanged';
    } else {
      template = dryRun ? current : await site.templates.update(name, { content, ...settings });
      action = 'updated';
    }
    results.push({ name, action, version: template.version });
    if (dryRun && action !== 'unchanged') out.note(`would ${action.replace(/d$/, '')} ${name}`);
    else out.note(`${action.padEnd(9)} ${name} (version ${template.version})`);
  }
  out.result({ ok: true, dryRun, templates: results }, () => {
    const count = (action: string) => results.filter((result) => result.action === action).length;
    return dryRun
      ? `Dry run: would create ${count('created')}, would update ${count('updated')}, ${count('unchanged')} unchanged.`
      : `Pushed ${results.length} template(s): ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged.`;
  });
  return ExitCode.ok;
}

/** `cms templates pull <dir>`: writes every template's head version to `<dir>/<name>.liquid`, bindings to `templates.json`. */
export async function templatesPull({
  site,
  out,
  io,
  dir,
}: SiteCommandDeps & { dir: string }): Promise<number> {
  const folder = resolve(io.cwd, dir);
  await io.fs.mkdir(folder, { recursive: true });
  const templates = await site.templates.list();
  const manifest: Manifest = {};
  for (const template of templates) {
    if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(template.name)) continue;
    await io.fs.writeFile(join(folder, `${template.name}.liquid`), template.content);
    const entry: Manifest[string] = {};
    if (template.boundType) entry.boundType = template.boundType;
    if (template.enabled === false) entry.enabled = false;
    if (Object.keys(entry).length > 0) manifest[template.name] = entry;
  }
  if (Object.keys(manifest).length > 0) {
    await io.fs.writeFile(join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  out.result(
    {
      ok: true,
      dir: folder,
      templates: templates.map((template) => ({ name: template.name, version: template.version })),
    },
    () => `Pulled ${templates.length} template(s) into ${folder}.`,
  );
  return ExitCode.ok;
}

/** `cms templates delete <name>`: the template and all its versions; 409 `in_use` while something uses it. */
export async function templatesDelete({
  site,
  out,
  name,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { name: string }): Promise<number> {
  await site.templates.delete(name);
  out.result({ ok: true, template: name }, () => `Deleted template ${name} and its versions.`);
  return ExitCode.ok;
}

/** `cms templates versions <name>`: every version of a template, oldest first. */
export async function templatesVersions({
  site,
  out,
  name,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { name: string }): Promise<number> {
  let versions: Template[];
  try {
    versions = await site.templates.versions(name);
  } catch (error) {
    if (isApiError(error) && error.status === 404) throw new UsageError(`No template named ${name}.`);
    throw error;
  }
  out.result(
    versions.map(({ content, ...meta }) => ({ ...meta, length: content.length })),
    () =>
      table(
        versions.map((version) => ({
          version: version.version,
          boundType: version.boundType ?? '',
          updatedAt: version.updatedAt ?? '',
          characters: version.content.length,
        })),
        ['version', 'boundType', 'updatedAt', 'characters'],
      ),
  );
  return ExitCode.ok;
}

async function readManifest(fs: Fs, folder: string): Promise<Manifest> {
  let text: string;
  try {
    text = await fs.readFile(join(folder, MANIFEST), 'utf8');
  } catch {
    return {};
  }
  try {
    return JSON.parse(text) as Manifest;
  } catch (error) {
    throw new UsageError(`${MANIFEST} is not valid JSON: ${(error as Error).message}`);
  }
}
