import { isApiError, type SiteClient } from '@trelliscms/sdk';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import { readDefinitions } from '../../io/read-definitions';
import type { SiteCommandDeps } from '../context';
import { isSubset } from '../site-folder/site-folder';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** A site resource namespace the `cms <group> list|delete` commands work on. */
export interface ResourceGroup {
  /** The command group, e.g. `block-types`. */
  name: string;
  /** The SDK namespace of the site client. */
  api: 'views' | 'transforms' | 'blockTypes' | 'widgets' | 'pageKits';
  /** What one is called in output, e.g. `block type`. */
  noun: string;
  /** The key it is addressed by (`name`, `id`). */
  key: string;
  /** The columns `list` shows. */
  columns: string[];
  /** The description of the group in `cms --help`. */
  description: string;
  /** What holds one, and what `--cascade` does (omitted: nothing names it / no cascade). */
  holders?: string;
  hasCascade?: boolean;
}

/** The namespaces of docs/api-spec.md §4 "Other site-scoped resource namespaces" without a group of their own. */
export const RESOURCE_GROUPS: readonly ResourceGroup[] = [
  {
    name: 'views',
    api: 'views',
    noun: 'view',
    key: 'name',
    columns: ['name', 'path', 'template', 'enabled'],
    description: 'Views: listing pages with SEO settings',
    holders:
      'A view that redirect routes point at is refused (409 in_use); --cascade deletes those redirects with it.',
    hasCascade: true,
  },
  {
    name: 'transforms',
    api: 'transforms',
    noun: 'transform',
    key: 'id',
    columns: ['id', 'event', 'kind', 'type', 'order', 'enabled'],
    description: 'Transforms: lifecycle hooks that change items',
  },
  {
    name: 'block-types',
    api: 'blockTypes',
    noun: 'block type',
    key: 'name',
    columns: ['name', 'label', 'template'],
    description: 'Block types: the blocks item bodies are built from',
    holders:
      'A block type that item bodies or page kits use is refused (409 in_use) and they are listed; there is no cascade.',
  },
  {
    name: 'widgets',
    api: 'widgets',
    noun: 'widget',
    key: 'name',
    columns: ['name', 'area', 'order', 'enabled'],
    description: 'Widgets: reusable page pieces placed in layout areas',
  },
  {
    name: 'page-kits',
    api: 'pageKits',
    noun: 'page kit',
    key: 'id',
    columns: ['id', 'name', 'category'],
    description: 'Page kits: reusable layout fragments',
  },
];

function apiOf(site: SiteClient, group: ResourceGroup) {
  return site[group.api] as unknown as {
    list(): Promise<Record<string, unknown>[]>;
    get(key: string): Promise<Record<string, unknown>>;
    create(body: Record<string, unknown>): Promise<Record<string, unknown>>;
    update(key: string, body: Record<string, unknown>): Promise<Record<string, unknown>>;
    delete(key: string, query?: { cascade?: boolean }): Promise<void>;
  };
}

/** `cms <group> list` */
export async function resourcesList({ site, out, group }: Deps & { group: ResourceGroup }): Promise<number> {
  const resources = await apiOf(site, group).list();
  out.result(resources, () => table(resources, group.columns));
  return ExitCode.ok;
}

/** `cms <group> delete <key> [--cascade]`: 409 `in_use` (the holders printed) while something uses it. */
export async function resourcesDelete({
  site,
  out,
  group,
  key,
  cascade,
}: Deps & { group: ResourceGroup; key: string; cascade: boolean }): Promise<number> {
  await apiOf(site, group).delete(key, { cascade });
  out.result({ ok: true, [group.key]: key, cascade }, () => `Deleted ${group.noun} ${key}.`);
  return ExitCode.ok;
}

/** `cms <group> get <key>`: one resource as JSON. */
export async function resourcesGet({
  site,
  out,
  group,
  key,
}: Deps & { group: ResourceGroup; key: string }): Promise<number> {
  const resource = await apiOf(site, group).get(key);
  out.result(resource, () => JSON.stringify(resource, null, 2));
  return ExitCode.ok;
}

/**
 * `cms <group> apply <file-or-folder> [--dry-run]`: creates each resource whose key does not
 * exist, updates the ones that differ and leaves the rest unchanged. Safe to run again.
 */
export async function resourcesApply({
  site,
  out,
  io,
  group,
  target,
  dryRun,
}: Deps &
  Pick<SiteCommandDeps, 'io'> & { group: ResourceGroup; target: string; dryRun: boolean }): Promise<number> {
  const definitions = await readDefinitions<Record<string, unknown>>({
    fs: io.fs,
    cwd: io.cwd,
    target,
    key: group.api,
    idField: group.key,
  });
  const api = apiOf(site, group);
  const results: { key: string; action: 'created' | 'updated' | 'unchanged' }[] = [];
  for (const definition of definitions) {
    const key = String(definition[group.key]);
    let current: Record<string, unknown> | null = null;
    try {
      current = await api.get(key);
    } catch (error) {
      if (!(isApiError(error) && error.status === 404)) throw error;
    }
    const action = !current ? 'created' : isSubset(definition, current) ? 'unchanged' : 'updated';
    if (!dryRun && action === 'created') await api.create(definition);
    if (!dryRun && action === 'updated') {
      const { [group.key]: _key, ...patch } = definition;
      await api.update(key, patch);
    }
    results.push({ key, action });
    const verb = dryRun && action !== 'unchanged' ? `would ${action.replace(/d$/, '')}` : action;
    out.note(`${verb.padEnd(14)} ${group.noun} ${key}`);
  }
  out.result({ ok: true, dryRun, [`${group.api}`]: results }, () => {
    const count = (action: string) => results.filter((result) => result.action === action).length;
    return dryRun
      ? `Dry run: would create ${count('created')}, would update ${count('updated')}, ${count('unchanged')} unchanged.`
      : `Applied ${results.length} ${group.noun}(s): ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged.`;
  });
  return ExitCode.ok;
}
