import type { CreateRouteBody } from '@trelliscms/core';
import { isApiError } from '@trelliscms/sdk';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import { readDefinitions } from '../../io/read-definitions';
import type { SiteCommandDeps } from '../context';

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
 * `cms routes apply <file-or-folder>`: creates each route whose slug does not exist and
 * updates the others. Safe to run again.
 */
export async function routesApply({
  site,
  out,
  io,
  target,
}: SiteCommandDeps & { target: string }): Promise<number> {
  const definitions = await readDefinitions<CreateRouteBody>({
    fs: io.fs,
    cwd: io.cwd,
    target,
    key: 'routes',
    idField: 'slug',
  });
  const results: { slug: string; path: string; action: 'created' | 'updated' }[] = [];
  for (const definition of definitions) {
    let exists = true;
    try {
      await site.routes.get(definition.slug);
    } catch (error) {
      if (!(isApiError(error) && error.status === 404)) throw error;
      exists = false;
    }
    if (exists) {
      const { slug, ...patch } = definition;
      await site.routes.update(slug, patch);
    } else {
      await site.routes.create(definition);
    }
    const action = exists ? 'updated' : 'created';
    results.push({ slug: definition.slug, path: definition.path, action });
    out.note(`${action} ${definition.slug} (${definition.path})`);
  }
  out.result({ ok: true, routes: results }, () => {
    const created = results.filter((result) => result.action === 'created').length;
    return `Applied ${results.length} route(s): ${created} created, ${results.length - created} updated.`;
  });
  return ExitCode.ok;
}
