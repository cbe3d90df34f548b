import { join } from 'node:path';
import type { CreateContentTypeBody, CreateRouteBody, Template } from '@trelliscms/core';
import { isApiError, type SiteClient } from '@trelliscms/sdk';
import { ExitCode, UsageError } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import type { Output } from '../../io/output';
import { readJsonFile } from '../../io/read-json-file';
import { FOLDERS, filesIn, isSubset, TEMPLATES_MANIFEST } from './site-folder';

/** What push did (or, in a dry run, would do) to one resource. */
export type PushAction = 'created' | 'updated' | 'unchanged';

export interface PushEntry {
  kind: 'type' | 'template' | 'route';
  name: string;
  action: PushAction;
}

type TemplateSettings = { boundType?: string; enabled?: boolean };

/** Reads `<dir>/types/*.json`: one type per file (or an array). */
async function readTypes(io: CliIo, dir: string): Promise<CreateContentTypeBody[]> {
  const folder = join(dir, FOLDERS.types);
  const types: CreateContentTypeBody[] = [];
  for (const file of await filesIn(io.fs, folder, '.json')) {
    const value = await readJsonFile(io.fs, io.cwd, join(folder, file));
    for (const entry of Array.isArray(value) ? value : [value]) {
      if (typeof entry?.name !== 'string')
        throw new UsageError(`${join(folder, file)}: a type needs a "name"`);
      types.push(entry as CreateContentTypeBody);
    }
  }
  return orderByDependency(types);
}

/** Types that others refer to (relationship or reference targets) first, so creating them never fails on a missing target. */
export function orderByDependency(types: CreateContentTypeBody[]): CreateContentTypeBody[] {
  const byName = new Map(types.map((type) => [type.name, type]));
  const ordered: CreateContentTypeBody[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (type: CreateContentTypeBody) => {
    if (state.get(type.name)) return;
    state.set(type.name, 'visiting');
    const targets = [
      ...(type.relationships ?? []).map((relationship) => relationship.target),
      ...type.fields.map((field) => (field as { target?: string }).target),
    ];
    for (const target of targets) {
      const dependency = target === undefined ? undefined : byName.get(target);
      if (dependency && dependency !== type) visit(dependency);
    }
    state.set(type.name, 'done');
    ordered.push(type);
  };
  for (const type of types) visit(type);
  return ordered;
}

async function readRoutes(io: CliIo, dir: string): Promise<CreateRouteBody[]> {
  const folder = join(dir, FOLDERS.routes);
  const routes: CreateRouteBody[] = [];
  for (const file of await filesIn(io.fs, folder, '.json')) {
    const value = await readJsonFile(io.fs, io.cwd, join(folder, file));
    for (const entry of Array.isArray(value) ? value : [value]) {
      if (typeof entry?.slug !== 'string')
        throw new UsageError(`${join(folder, file)}: a route needs a "slug"`);
      routes.push(entry as CreateRouteBody);
    }
  }
  return routes;
}

async function readTemplates(
  io: CliIo,
  dir: string,
): Promise<{ name: string; content: string; settings: TemplateSettings }[]> {
  const folder = join(dir, FOLDERS.templates);
  const names = await filesIn(io.fs, folder, '.liquid');
  const manifestFiles = await filesIn(io.fs, folder, TEMPLATES_MANIFEST);
  const manifest = manifestFiles.includes(TEMPLATES_MANIFEST)
    ? ((await readJsonFile(io.fs, io.cwd, join(folder, TEMPLATES_MANIFEST))) as Record<
        string,
        TemplateSettings
      >)
    : {};
  return Promise.all(
    names.map(async (file) => {
      const name = file.slice(0, -'.liquid'.length);
      return {
        name,
        content: await io.fs.readFile(join(folder, file), 'utf8'),
        settings: manifest[name] ?? {},
      };
    }),
  );
}

async function getOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isApiError(error) && error.status === 404) return null;
    throw error;
  }
}

/**
 * `cms push [dir] [--dry-run]`: makes the site's types, templates and routes match the
 * folder: creates what is missing, updates what differs, leaves the rest unchanged (types
 * first, in dependency order; then templates; then routes, which name templates). A dry run
 * reads only and says what it would create or update. Resources only on the server stay.
 */
export async function push({
  io,
  out,
  site,
  dir,
  dryRun,
}: {
  io: CliIo;
  out: Output;
  site: SiteClient;
  dir: string;
  dryRun: boolean;
}): Promise<number> {
  const [types, templates, routes] = await Promise.all([
    readTypes(io, dir),
    readTemplates(io, dir),
    readRoutes(io, dir),
  ]);
  if (types.length + templates.length + routes.length === 0) {
    throw new UsageError(`Nothing to push in ${dir}: no types/*.json, templates/*.liquid or routes/*.json.`);
  }
  const entries: PushEntry[] = [];
  const record = (entry: PushEntry) => {
    entries.push(entry);
    const verb =
      dryRun && entry.action !== 'unchanged' ? `would ${entry.action.replace(/d$/, '')}` : entry.action;
    out.note(`${verb.padEnd(14)} ${entry.kind} ${entry.name}`);
  };

  for (const type of types) {
    const current = await getOrNull(() => site.types.get(type.name));
    const action: PushAction = !current ? 'created' : isSubset(type, current) ? 'unchanged' : 'updated';
    if (!dryRun && action === 'created') await site.types.create(type);
    if (!dryRun && action === 'updated') {
      const { name, ...patch } = type;
      await site.types.update(name, patch);
    }
    record({ kind: 'type', name: type.name, action });
  }

  const existing = new Map<string, Template>(
    (await site.templates.list()).map((template) => [template.name, template]),
  );
  for (const template of templates) {
    const current = existing.get(template.name);
    const { boundType, enabled } = template.settings;
    const action: PushAction = !current
      ? 'created'
      : current.content === template.content &&
          (boundType === undefined || boundType === (current.boundType ?? '')) &&
          (enabled === undefined || enabled === (current.enabled ?? true))
        ? 'unchanged'
        : 'updated';
    if (!dryRun && action === 'created') {
      await site.templates.create({ name: template.name, content: template.content, ...template.settings });
    }
    if (!dryRun && action === 'updated') {
      await site.templates.update(template.name, { content: template.content, ...template.settings });
    }
    record({ kind: 'template', name: template.name, action });
  }

  for (const route of routes) {
    const current = await getOrNull(() => site.routes.get(route.slug));
    const action: PushAction = !current ? 'created' : isSubset(route, current) ? 'unchanged' : 'updated';
    if (!dryRun && action === 'created') await site.routes.create(route);
    if (!dryRun && action === 'updated') {
      const { slug, ...patch } = route;
      await site.routes.update(slug, patch);
    }
    record({ kind: 'route', name: route.slug, action });
  }

  const count = (action: PushAction) => entries.filter((entry) => entry.action === action).length;
  out.result({ ok: true, dryRun, site: site.id, dir, entries }, () => {
    const summary = dryRun
      ? `Dry run for ${site.id}: would create ${count('created')}, would update ${count('updated')}, ${count('unchanged')} unchanged. Nothing was written.`
      : `Pushed ${dir} to ${site.id}: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged.`;
    return dryRun || count('created') + count('updated') === 0 ? summary : [summary, 'Next: cms build'];
  });
  return ExitCode.ok;
}
