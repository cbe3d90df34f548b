import { SearchEmission, SiteCollections, StarterKit } from '@trelliscms/core';
import { type Command, Option } from 'commander';
import { normalizeSite } from '../../config/normalize';
import { UsageError } from '../../errors';
import { type CommandKit, subcommand } from '../command-kit';
import { sitesCreate, sitesDelete, sitesGet, sitesList, sitesUpdate, sitesUse } from './sites';

export interface SitesCreateFlags {
  slug?: string;
  starterKit?: StarterKit;
  publicUrl?: string;
  description?: string;
  use?: boolean;
}

export interface SitesUpdateFlags {
  name?: string;
  publicUrl?: string;
  description?: string;
  mantra?: string;
  searchEmission?: SearchEmission;
  collections?: SiteCollections;
}

/** `--collections '{"tags": {"type": "post", "groupBy": "tags"}}'`: the site's collections as JSON. */
function toCollections(text: string): SiteCollections {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(
      '--collections must be JSON: {"<name>": {"type": "post", "where": "...", "sort": "...", "groupBy": "..."}}',
    );
  }
  const parsed = SiteCollections.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `--collections: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

export interface SitesDeleteFlags {
  yes?: boolean;
}

/** `cms sites list|create|get|update|delete|use` */
export function defineSitesCommands(program: Command, { io, action }: CommandKit): void {
  const sites = program.command('sites').description('List, create, inspect, update and delete sites');
  subcommand(
    sites,
    'list',
    'List the sites you can access (the current one marked *)',
    'cms sites list --json',
  ).action(
    action(async (context) =>
      sitesList({
        client: await context.client(),
        out: context.out,
        current: (await context.connection()).site,
      }),
    ),
  );
  subcommand(
    sites,
    'create',
    'Create a site, seeded from a starter kit',
    'cms sites create "My blog" --slug blog --starter-kit author --use',
  )
    .argument('<name>', 'site name')
    .option('--slug <slug>', 'URL slug (default: from the name)')
    .addOption(new Option('--starter-kit <kit>', 'seed types and templates').choices(StarterKit.options))
    .option('--public-url <url>', 'where the site is published')
    .option('--description <text>', 'description')
    .option('--use', 'make it the default site of the current profile')
    .action(
      action<SitesCreateFlags>(async (context, [name], options) => {
        const client = await context.client();
        const body = {
          name: name!,
          ...(options.slug ? { slug: options.slug } : {}),
          ...(options.starterKit ? { starterKit: options.starterKit } : {}),
          ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
          ...(options.description ? { description: options.description } : {}),
        };
        const use = options.use
          ? { io, configFile: context.configFile, profile: (await context.connection()).profile }
          : undefined;
        return sitesCreate({ client, out: context.out, body, use });
      }),
    );
  subcommand(sites, 'get', 'Show a site', 'cms sites get site:blog')
    .argument('<id>', 'site slug or id (blog or site:blog)')
    .action(
      action(async (context, [id]) =>
        sitesGet({ client: await context.client(), out: context.out, id: normalizeSite(id!) }),
      ),
    );
  subcommand(sites, 'update', 'Change a site (only the options given)', [
    'cms sites update site:blog --public-url https://blog.example.com',
    `cms sites update site:blog --collections '{"tags": {"type": "post", "groupBy": "tags"}}'`,
  ])
    .argument('<id>', 'site slug or id')
    .option('--name <name>', 'new name')
    .option('--public-url <url>', 'public URL')
    .option('--description <text>', 'description')
    .option('--mantra <text>', 'mantra')
    .addOption(
      new Option('--search-emission <mode>', 'build-time search index').choices(SearchEmission.options),
    )
    .option(
      '--collections <json>',
      'site collections for templates (site.collections.<name>), replacing the current ones; {} removes them',
      toCollections,
    )
    .action(
      action<SitesUpdateFlags>(async (context, [id], options) =>
        sitesUpdate({
          client: await context.client(),
          out: context.out,
          id: normalizeSite(id!),
          body: {
            ...(options.name ? { name: options.name } : {}),
            ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.mantra !== undefined ? { mantra: options.mantra } : {}),
            ...(options.searchEmission ? { searchEmission: options.searchEmission } : {}),
            ...(options.collections ? { collections: options.collections } : {}),
          },
        }),
      ),
    );
  subcommand(sites, 'delete', 'Soft-delete a site (owner only)', 'cms sites delete site:old --yes')
    .argument('<id>', 'site slug or id')
    .option('--yes', 'confirm')
    .action(
      action<SitesDeleteFlags>(async (context, [id], options) =>
        sitesDelete({
          client: await context.client(),
          out: context.out,
          id: normalizeSite(id!),
          yes: options.yes === true,
        }),
      ),
    );
  subcommand(sites, 'use', 'Make a site the default of the current profile', [
    'cms sites use blog',
    'cms sites use site:blog',
  ])
    .argument('<id>', 'site slug or id')
    .action(
      action(async (context, [id]) => {
        const connection = await context.connection();
        return sitesUse({
          client: await context.client(),
          out: context.out,
          io,
          id: normalizeSite(id!),
          configFile: context.configFile,
          profile: connection.profile,
        });
      }),
    );
}
