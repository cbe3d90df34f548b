import type { TrellisClient } from '@trelliscms/sdk';
import { readConfig, writeConfig } from '../../config/profiles';
import { ExitCode } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import type { Output } from '../../io/output';

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
