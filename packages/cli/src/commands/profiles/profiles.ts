import { readConfig, writeConfig } from '../../config/profiles';
import { ExitCode, UsageError } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import { type Output, table } from '../../io/output';
import { didYouMean } from '../../parse/did-you-mean';
import { maskKey } from '../login/login';

interface Deps {
  io: CliIo;
  out: Output;
  configFile: string;
}

/** `cms profiles list`: every saved profile, the current one marked `*`; keys masked. */
export async function profilesList({ io, out, configFile }: Deps): Promise<number> {
  const config = await readConfig(io.fs, configFile);
  const rows = Object.entries(config.profiles).map(([name, profile]) => ({
    name,
    current: name === config.currentProfile,
    url: profile.url,
    site: profile.site ?? null,
    key: profile.key ? maskKey(profile.key) : null,
  }));
  out.result({ currentProfile: config.currentProfile, configFile, profiles: rows }, () =>
    rows.length === 0
      ? 'No profiles yet: run cms login --url <url> --key-stdin.'
      : table(
          rows.map((row) => ({
            ...row,
            current: row.current ? '*' : '',
            site: row.site ?? '',
            key: row.key ?? '(logged out)',
          })),
          [['current', ''], 'name', 'url', 'site', 'key'],
        ),
  );
  return ExitCode.ok;
}

/** `cms profiles use <name>`: makes a saved profile the current one. */
export async function profilesUse({ io, out, configFile, name }: Deps & { name: string }): Promise<number> {
  const config = await readConfig(io.fs, configFile);
  const profile = config.profiles[name];
  if (!profile) throw unknownProfile(name, Object.keys(config.profiles));
  config.currentProfile = name;
  await writeConfig(io.fs, configFile, config);
  out.result(
    { ok: true, currentProfile: name },
    () => `Now using profile "${name}" (${profile.url}${profile.site ? `, ${profile.site}` : ''}).`,
  );
  return ExitCode.ok;
}

/**
 * `cms profiles remove <name>`: forgets a profile and its key. Removing the current profile
 * makes the first remaining one current.
 */
export async function profilesRemove({
  io,
  out,
  configFile,
  name,
}: Deps & { name: string }): Promise<number> {
  const config = await readConfig(io.fs, configFile);
  if (!config.profiles[name]) throw unknownProfile(name, Object.keys(config.profiles));
  delete config.profiles[name];
  const wasCurrent = config.currentProfile === name;
  if (wasCurrent) config.currentProfile = Object.keys(config.profiles)[0] ?? 'default';
  await writeConfig(io.fs, configFile, config);
  const remaining = Object.keys(config.profiles).length;
  out.result({ ok: true, removed: name, currentProfile: config.currentProfile }, () => [
    `Removed profile "${name}".`,
    ...(wasCurrent && remaining > 0 ? [`Now using profile "${config.currentProfile}".`] : []),
    ...(remaining === 0 ? ['No profiles left: run cms login to add one.'] : []),
  ]);
  return ExitCode.ok;
}

function unknownProfile(name: string, known: string[]): UsageError {
  const suggestion = didYouMean(name, known);
  return new UsageError(
    `No profile named "${name}".${suggestion ? ` Did you mean "${suggestion}"?` : ''} cms profiles list shows them.`,
  );
}
