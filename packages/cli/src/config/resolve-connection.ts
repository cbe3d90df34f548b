import { UsageError } from '../errors';
import { normalizeSite, normalizeUrl } from './normalize';
import type { ConfigFile } from './profiles';

/** The global options every command accepts. */
export interface GlobalFlags {
  url?: string;
  key?: string;
  site?: string;
  profile?: string;
  json?: boolean;
}

/** Where a command connects to, and as whom. */
export interface Connection {
  url: string;
  key: string | undefined;
  site: string | undefined;
  /** The profile the values came from (after overrides). */
  profile: string;
}

/**
 * Picks each setting from, in order: the command-line flag, the environment variable
 * (CMS_URL, CMS_API_KEY, CMS_SITE; CMS_PROFILE picks the profile), the profile in the
 * config file. The URL may be a bare host or end in `/api`, the site a bare slug (both
 * normalised). Throws a UsageError when no server URL is known.
 */
export function resolveConnection({
  flags,
  env,
  config,
}: {
  flags: GlobalFlags;
  env: Record<string, string | undefined>;
  config: ConfigFile;
}): Connection {
  const profileName = flags.profile ?? nonEmpty(env.CMS_PROFILE) ?? config.currentProfile;
  const profile = config.profiles[profileName];
  if ((flags.profile || nonEmpty(env.CMS_PROFILE)) && !profile) {
    throw new UsageError(
      `No profile named "${profileName}". Create it with cms login --profile ${profileName}.`,
    );
  }
  const url = flags.url ?? nonEmpty(env.CMS_URL) ?? profile?.url;
  if (!url) {
    throw new UsageError('No server: run cms login --url <url> --key-stdin, or pass --url, or set CMS_URL.');
  }
  const site = flags.site ?? nonEmpty(env.CMS_SITE) ?? profile?.site;
  return {
    url: normalizeUrl(url),
    key: flags.key ?? nonEmpty(env.CMS_API_KEY) ?? profile?.key,
    site: site === undefined ? undefined : normalizeSite(site),
    profile: profileName,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
