import { mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `<dataDir>/sites/by-slug/<slug>`: a symbolic link to the site's own folder
 * (`<dataDir>/sites/<graphName>/`, named by its graph, which never changes), so an operator finds a
 * site's deployed versions by its slug. Links are made when a site is first built and remade for
 * every site at start (which also removes those of deleted sites and old slugs).
 */
export const BY_SLUG = 'by-slug';

/** Makes (or fixes) the link of one site; a failure is harmless and reported to the caller. */
export function linkSiteFolder(dataDir: string, slug: string, graphName: string): void {
  const dir = join(dataDir, 'sites', BY_SLUG);
  const link = join(dir, slug);
  const target = join('..', graphName);
  try {
    if (readlinkSync(link) === target) return;
  } catch {
    // No link yet (or not a link): made below.
  }
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${slug}-${process.pid}-${Date.now()}`);
  symlinkSync(target, temp);
  renameSync(temp, link);
}

/** Remakes the links of `sites` and removes every other link in `by-slug/`. */
export function relinkSiteFolders(
  dataDir: string,
  sites: ReadonlyArray<{ slug: string; graphName: string }>,
): void {
  const dir = join(dataDir, 'sites', BY_SLUG);
  const wanted = new Set(sites.map((site) => site.slug));
  let existing: string[] = [];
  try {
    existing = readdirSync(dir);
  } catch {
    // Nothing yet.
  }
  for (const name of existing) if (!wanted.has(name)) rmSync(join(dir, name), { force: true });
  for (const site of sites) linkSiteFolder(dataDir, site.slug, site.graphName);
}
