import { join, resolve } from 'node:path';
import { normalizeSite } from '../../config/normalize';
import { UsageError } from '../../errors';
import type { Fs } from '../../io/cli-io';

/** The file that binds a folder to a site. */
export const BINDING_FILE = 'trellis.json';

/** The sub-folders of a site folder, one per resource. */
export const FOLDERS = { types: 'types', templates: 'templates', routes: 'routes' } as const;

/** The bindings of the `.liquid` files (`{"<name>": {"boundType": "post"}}`), the format of `cms templates push`. */
export const TEMPLATES_MANIFEST = 'templates.json';

/** `trellis.json`: which site the folder is pushed to and pulled from. */
export interface SiteBinding {
  site: string;
}

/** Reads `<dir>/trellis.json`; undefined when the folder has none. */
export async function readBinding(fs: Fs, dir: string): Promise<SiteBinding | undefined> {
  let text: string;
  try {
    text = await fs.readFile(join(dir, BINDING_FILE), 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${join(dir, BINDING_FILE)} is not valid JSON: ${(error as Error).message}`);
  }
  const site = (value as { site?: unknown } | null)?.site;
  if (typeof site !== 'string') {
    throw new UsageError(`${join(dir, BINDING_FILE)} needs "site": the site's slug or id, e.g. "site:blog".`);
  }
  return { site: normalizeSite(site) };
}

/** Writes `<dir>/trellis.json`. */
export async function writeBinding(fs: Fs, dir: string, binding: SiteBinding): Promise<void> {
  await fs.writeFile(join(dir, BINDING_FILE), `${JSON.stringify(binding, null, 2)}\n`);
}

/**
 * The site a folder command works on: `--site` first, then the folder's `trellis.json`, then
 * CMS_SITE and the profile (`fallback`). A usage error when none is known.
 */
export async function siteOfFolder({
  fs,
  dir,
  flag,
  fallback,
}: {
  fs: Fs;
  dir: string;
  flag?: string;
  fallback?: string;
}): Promise<string> {
  if (flag) return normalizeSite(flag);
  const binding = await readBinding(fs, dir);
  if (binding) return binding.site;
  if (fallback) return fallback;
  throw new UsageError(
    `No site for ${dir}: it has no ${BINDING_FILE}; run cms init --site <slug> there, or pass --site <slug>.`,
  );
}

/** The absolute folder of a command's `[dir]` argument (default: the current directory). */
export function folderOf(cwd: string, dir: string | undefined): string {
  return resolve(cwd, dir ?? '.');
}

/** Lists the file names of `dir` ending in `ext` (sorted); none when the folder is missing. */
export async function filesIn(fs: Fs, dir: string, ext: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).filter((name) => name.endsWith(ext)).sort();
  } catch {
    return [];
  }
}

/** JSON as the folder stores it: two-space indents and a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * True when every key the local definition gives has the server's value (nested objects and
 * arrays compared the same way), so defaults the server adds do not count as a change.
 */
export function isSubset(local: unknown, remote: unknown): boolean {
  if (Array.isArray(local)) {
    return (
      Array.isArray(remote) &&
      local.length === remote.length &&
      local.every((value, index) => isSubset(value, remote[index]))
    );
  }
  if (typeof local === 'object' && local !== null) {
    if (typeof remote !== 'object' || remote === null || Array.isArray(remote)) return false;
    return Object.entries(local).every(([key, value]) =>
      value === undefined ? true : isSubset(value, (remote as Record<string, unknown>)[key]),
    );
  }
  return local === remote;
}
