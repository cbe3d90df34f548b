import type { TrellisClient } from '@trelliscms/sdk';
import { readConfig, writeConfig } from '../../config/profiles';
import type { Connection } from '../../config/resolve-connection';
import { ExitCode, UsageError } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import { type Output, table } from '../../io/output';

export interface LoginOptions {
  io: CliIo;
  out: Output;
  configFile: string;
  url: string;
  key: string;
  profile: string;
  site?: string;
  /** Check the URL and key with the server before saving. */
  verify: boolean;
  client: TrellisClient;
}

/**
 * `cms login`: checks the server answers and the key is accepted (GET /api/health, GET
 * /api/access/my-sites), then saves the profile and makes it current.
 */
export async function login(options: LoginOptions): Promise<number> {
  const { io, out, configFile, url, key, profile, site, verify, client } = options;
  let siteCount: number | undefined;
  if (verify) {
    await client.health.get();
    siteCount = (await client.access.mySites()).length;
  }
  const config = await readConfig(io.fs, configFile);
  const previous = config.profiles[profile];
  config.profiles[profile] = {
    url,
    key,
    ...(site ? { site } : previous?.site ? { site: previous.site } : {}),
  };
  config.currentProfile = profile;
  await writeConfig(io.fs, configFile, config);
  out.result({ ok: true, profile, url, configFile, sites: siteCount ?? null }, () => [
    `Logged in to ${url} as profile "${profile}"${siteCount === undefined ? '' : ` (${siteCount} site(s) accessible)`}.`,
    `Saved to ${configFile}.`,
  ]);
  return ExitCode.ok;
}

/** A key as it may be shown: its first 6 and last 4 characters. */
export function maskKey(key: string | undefined): string {
  if (!key) return '(none)';
  return key.length > 14 ? `${key.slice(0, 6)}…${key.slice(-4)}` : '…';
}

/**
 * `cms logout`: removes the saved key of the profile (`profile`, else CMS_PROFILE, else the
 * current one). Its URL and default site stay, so `cms login --key-stdin` logs in again.
 */
export async function logout({
  io,
  out,
  configFile,
  profile: chosen,
}: {
  io: CliIo;
  out: Output;
  configFile: string;
  profile?: string;
}): Promise<number> {
  const config = await readConfig(io.fs, configFile);
  const profile = chosen ?? io.env.CMS_PROFILE ?? config.currentProfile;
  const saved = config.profiles[profile];
  if (!saved) throw new UsageError(`No profile named "${profile}" (cms profiles list shows them).`);
  const hadKey = saved.key !== undefined;
  delete saved.key;
  await writeConfig(io.fs, configFile, config);
  out.result({ ok: true, profile, removedKey: hadKey }, () =>
    hadKey
      ? `Logged out of profile "${profile}" (${saved.url}): its key is removed from ${configFile}.`
      : `Profile "${profile}" had no saved key; nothing to do.`,
  );
  if (hadKey) out.note('Log in again with: cms login --key-stdin');
  return ExitCode.ok;
}

/**
 * `cms whoami`: the server, profile, key (masked) and site in use, and the role the key has
 * on every site it can access (GET /api/access/my-sites), the current site marked `*`.
 */
export async function whoami({
  client,
  out,
  connection,
}: {
  client: TrellisClient;
  out: Output;
  connection: Connection;
}): Promise<number> {
  if (!connection.key) {
    throw new UsageError(`Not logged in on profile "${connection.profile}": run cms login --key-stdin.`);
  }
  const sites = await client.access.mySites();
  const current = connection.site;
  out.result(
    {
      url: connection.url,
      profile: connection.profile,
      key: maskKey(connection.key),
      site: current ?? null,
      sites: sites.map((entry) => ({ ...entry, current: entry.siteId === current })),
    },
    () => [
      `server:  ${connection.url}`,
      `profile: ${connection.profile}`,
      `key:     ${maskKey(connection.key)}`,
      `site:    ${current ?? '(none: cms sites use <slug>)'}`,
      '',
      ...table(
        sites.map((entry) => ({
          current: entry.siteId === current ? '*' : '',
          siteId: entry.siteId,
          siteName: entry.siteName,
          role: entry.role,
        })),
        [['current', ''], 'siteId', 'siteName', 'role'],
      ),
    ],
  );
  return ExitCode.ok;
}
