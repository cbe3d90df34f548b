import type { SiteClient } from '@trelliscms/sdk';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

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
