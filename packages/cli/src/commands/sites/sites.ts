import type { CreateSiteBody, Site, UpdateSiteBody } from '@trelliscms/core';
import { readConfig, writeConfig } from '../../config/profiles';
import { ExitCode, UsageError } from '../../errors';
import { table } from '../../io/output';
import type { CommandDeps } from '../context';

type Deps = Pick<CommandDeps, 'client' | 'out'>;

const describe = (site: Site) => [
  `${site.id}  ${site.name}`,
  `  graph: ${site.graphName}`,
  `  public URL: ${site.publicUrl ?? '(none)'}`,
  `  search: ${site.searchEmission ?? 'bm25'}  created: ${site.createdAt}`,
];

/** `cms sites list`: the current site (of --site, CMS_SITE or the profile) marked `*`. */
export async function sitesList({ client, out, current }: Deps & { current?: string }): Promise<number> {
  const sites = await client.sites.list();
  out.result(sites, () =>
    table(
      sites.map((site) => ({ ...site, current: site.id === current ? '*' : '' })),
      [['current', ''], 'id', 'name', 'publicUrl', 'createdAt'],
    ),
  );
  return ExitCode.ok;
}

/**
 * `cms sites create <name>`: creates a site, seeded from a starter kit when given; with
 * `use`, makes it the default site of the profile.
 */
export async function sitesCreate({
  client,
  out,
  body,
  use,
}: Deps & {
  body: CreateSiteBody;
  use?: { io: CommandDeps['io']; configFile: string; profile: string };
}): Promise<number> {
  const site = await client.sites.create(body);
  if (use) await saveSite(use.io, use.configFile, use.profile, site.id);
  out.result(site, () => [
    `Created ${site.id}.`,
    ...describe(site),
    ...(use ? [`Profile "${use.profile}" now uses ${site.id}.`] : []),
  ]);
  return ExitCode.ok;
}

async function saveSite(
  io: CommandDeps['io'],
  configFile: string,
  profile: string,
  siteId: string,
): Promise<void> {
  const config = await readConfig(io.fs, configFile);
  const saved = config.profiles[profile];
  if (!saved) throw new UsageError(`No saved profile "${profile}": run cms login first.`);
  saved.site = siteId;
  await writeConfig(io.fs, configFile, config);
}

/** `cms sites get <id>` */
export async function sitesGet({ client, out, id }: Deps & { id: string }): Promise<number> {
  const site = await client.sites.get(id);
  out.result(site, () => describe(site));
  return ExitCode.ok;
}

/** `cms sites update <id>`: sends only the fields given. */
export async function sitesUpdate({
  client,
  out,
  id,
  body,
}: Deps & { id: string; body: UpdateSiteBody }): Promise<number> {
  if (Object.keys(body).length === 0)
    throw new UsageError('Nothing to update: give at least one of the options.');
  const site = await client.sites.update(id, body);
  out.result(site, () => [`Updated ${site.id}.`, ...describe(site)]);
  return ExitCode.ok;
}

/** `cms sites delete <id> --yes`: a soft delete (owner only). */
export async function sitesDelete({
  client,
  out,
  id,
  yes,
}: Deps & { id: string; yes: boolean }): Promise<number> {
  if (!yes) throw new UsageError(`Deleting ${id} needs --yes.`);
  const answer = await client.sites.delete(id);
  out.result(answer, () => `Deleted ${id} (soft delete at ${answer.deletedAt}).`);
  return ExitCode.ok;
}

/** `cms sites use <id>`: makes `id` the default site of the current profile. */
export async function sitesUse({
  client,
  out,
  io,
  id,
  configFile,
  profile,
}: CommandDeps & { id: string; configFile: string; profile: string }): Promise<number> {
  const site = await client.sites.get(id);
  await saveSite(io, configFile, profile, site.id);
  out.result(
    { ok: true, profile, site: site.id },
    () => `Profile "${profile}" now uses ${site.id} (${site.name}).`,
  );
  return ExitCode.ok;
}
