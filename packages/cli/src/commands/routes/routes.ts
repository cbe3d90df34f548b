import type { CreateRouteBody } from '@trelliscms/core';
import { isApiError } from '@trelliscms/sdk';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import { readDefinitions } from '../../io/read-definitions';
import type { SiteCommandDeps } from '../context';
import { isSubset } from '../site-folder/site-folder';

/** `cms routes list`: the hand-made URLs of the site (pages, listings, redirects). */
export async function routesList({ site, out }: Pick<SiteCommandDeps, 'site' | 'out'>): Promise<number> {
  const routes = await site.routes.list();
  out.result(routes, () => table(routes, ['slug', 'path', 'kind', 'template', 'enabled']));
  return ExitCode.ok;
}

/**
 * `cms routes delete <slug> [--cascade]`: 409 `in_use` while redirects point at its path;
 * `--cascade` deletes those redirects with it.
 */
export async function routesDelete({
  site,
  out,
  slug,
  cascade,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { slug: string; cascade: boolean }): Promise<number> {
  await site.routes.delete(slug, { cascade });
  out.result({ ok: true, route: slug, cascade }, () =>
    cascade ? `Deleted route ${slug} and the redirects to it.` : `Deleted route ${slug}.`,
  );
  return ExitCode.ok;
}

/**
 * `cms routes apply <file-or-folder> [--dry-run]`: creates each route whose slug does not
 * exist, updates the ones that differ and leaves the others unchanged. Safe to run again; a
 * dry run reads only.
 */
export async function routesApply({
  site,
  out,
  io,
  target,
  dryRun = false,
}: SiteCommandDeps & { target: string; dryRun?: boolean }): Promise<number> {
  const definitions = await readDefinitions<CreateRouteBody>({
    fs: io.fs,
    cwd: io.cwd,
    target,
    key: 'routes',
    idField: 'slug',
  });
  const results: { slug: string; path: string; action: 'created' | 'updated' | 'unchanged' }[] = [];
  for (const definition of definitions) {
    let current: unknown = null;
    try {
      current = await site.routes.get(definition.slug);
    } catch (error) {
      if (!(isApiError(error) && error.status === 404)) throw error;
    }
    const action = !current ? 'created' : isSubset(definition, current) ? 'unchanged' : 'updated';
    if (!dryRun && action === 'updated') {
      const { slug, ...patch } = definition;
      await site.routes.update(slug, patch);
    }
    if (!dryRun && action === 'created') await site.routes.create(definition);
    results.push({ slug: definition.slug, path: definition.path, action });
    const verb = dryRun && action !== 'unchanged' ? `would ${action.replace(/d$/, '')}` : action;
    out.note(`${verb} ${definition.slug} (${definition.path})`);
  }
  out.result({ ok: true, dryRun, routes: results }, () => {
    const count = (action: string) => results.filter((result) => result.action === action).length;
    return dryRun
      ? `Dry run: would create ${count('created')}, would update ${count('updated')}, ${count('unchanged')} unchanged.`
      : `Applied ${results.length} route(s): ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged.`;
  });
  return ExitCode.ok;
}
