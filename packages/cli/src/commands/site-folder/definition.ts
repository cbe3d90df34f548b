import type { Command } from 'commander';
import { normalizeSite } from '../../config/normalize';
import { UsageError } from '../../errors';
import { type CommandKit, subcommand } from '../command-kit';
import { init } from './init';
import { pull } from './pull';
import { push } from './push';
import { folderOf, siteOfFolder } from './site-folder';

const FOLDER_HELP = `A site folder holds trellis.json ({"site": "site:<slug>"}), types/<name>.json (one content
type each), templates/<name>.liquid (with their bound types in templates/templates.json) and
routes/<slug>.json. Its site is --site if given, else trellis.json's, else the profile's.`;

/** `cms init`, `cms push`, `cms pull`: a site's types, templates and routes as a folder of files. */
export function defineSiteFolderCommands(program: Command, { io, action }: CommandKit): void {
  subcommand(
    program,
    'init',
    'Scaffold a site folder: trellis.json bound to a site, types/, templates/, routes/',
    ['cms init blog --site blog', 'cms init . --site site:docs'],
    FOLDER_HELP,
  )
    .argument('[dir]', 'folder to create or fill (default: the current one)')
    .option('--force', 'rebind a folder that already has a trellis.json')
    .action(
      action<{ force?: boolean }>(async (context, [dir], options) => {
        const site = context.flags.site ?? io.env.CMS_SITE ?? (await siteOfProfile(context));
        if (!site) throw new UsageError('cms init needs the site to bind: pass --site <slug>.');
        return init({
          io,
          out: context.out,
          dir: folderOf(io.cwd, dir),
          site: normalizeSite(site),
          force: options.force === true,
        });
      }),
    );
  subcommand(
    program,
    'push',
    "Make the site's types, templates and routes match a site folder (--dry-run: say what would change)",
    ['cms push --dry-run', 'cms push ./blog'],
    FOLDER_HELP,
  )
    .argument('[dir]', 'site folder (default: the current one)')
    .option('--dry-run', 'read only: list what would be created or updated')
    .action(
      action<{ dryRun?: boolean }>(async (context, [dir], options) => {
        const folder = folderOf(io.cwd, dir);
        const site = await siteOfFolder({
          fs: io.fs,
          dir: folder,
          flag: context.flags.site,
          fallback: (await context.connection()).site,
        });
        return push({
          io,
          out: context.out,
          site: (await context.client()).site(site),
          dir: folder,
          dryRun: options.dryRun === true,
        });
      }),
    );
  subcommand(
    program,
    'pull',
    "Write the site's types, templates and routes into a site folder",
    ['cms pull', 'cms pull ./blog --site blog'],
    FOLDER_HELP,
  )
    .argument('[dir]', 'site folder (default: the current one)')
    .action(
      action(async (context, [dir]) => {
        const folder = folderOf(io.cwd, dir);
        const site = await siteOfFolder({
          fs: io.fs,
          dir: folder,
          flag: context.flags.site,
          fallback: (await context.connection()).site,
        });
        return pull({ io, out: context.out, site: (await context.client()).site(site), dir: folder });
      }),
    );
}

/** The profile's site, without requiring a server URL (cms init works offline). */
async function siteOfProfile(context: { connection(): Promise<{ site: string | undefined }> }) {
  try {
    return (await context.connection()).site;
  } catch {
    return undefined;
  }
}
