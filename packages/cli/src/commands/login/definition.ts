import { createClient, type TrellisClient } from '@trelliscms/sdk';
import type { Command } from 'commander';
import { normalizeSite, normalizeUrl } from '../../config/normalize';
import { readConfig } from '../../config/profiles';
import { UsageError } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import { type CommandKit, subcommand } from '../command-kit';
import { login, logout, whoami } from './login';

/** The options of `cms login` besides the global ones (--url, --key, --site and --profile). */
export interface LoginFlags {
  /** `false` with `--no-verify`. */
  verify: boolean;
  keyStdin?: boolean;
}

/** A client for `url` (normalised: a bare host, a trailing `/api`). */
function clientFor(url: string, key: string | undefined, io: CliIo): TrellisClient {
  return createClient({ baseUrl: url, apiKey: key, fetch: io.fetch });
}

/**
 * The key of `cms login`: --key (or CMS_API_KEY), else standard input with --key-stdin,
 * else a hidden prompt when a person is at a terminal. Never echoed.
 */
async function readKey(io: CliIo, flagKey: string | undefined, keyStdin: boolean): Promise<string> {
  if (keyStdin) {
    if (flagKey) throw new UsageError('Give --key or --key-stdin, not both.');
    if (!io.stdin) throw new UsageError('--key-stdin: there is no standard input to read.');
    const key = (await io.stdin.readAll()).trim();
    if (!key) throw new UsageError('--key-stdin: standard input was empty.');
    return key;
  }
  const key = flagKey ?? io.env.CMS_API_KEY;
  if (key) return key;
  if (io.stdin?.isTTY) {
    const typed = (await io.stdin.readSecret('API key (input hidden): ')).trim();
    if (typed) return typed;
  }
  throw new UsageError(
    'cms login needs a key: pipe it with --key-stdin (keeps it out of shell history), type it at the prompt, or pass --key <key>.',
  );
}

/** `cms login`, `cms logout`, `cms whoami`: --url, --key, --site and --profile are the global options. */
export function defineLoginCommand(program: Command, { io, action }: CommandKit): void {
  subcommand(
    program,
    'login',
    'Save a server URL and API key as a profile (checked with the server first); --site sets its default site',
    [
      'cms login --url 127.0.0.1:4000 --key-stdin < owner-key.txt',
      'cms login --url https://cms.example.com --profile prod --site blog',
      'cms login --url http://127.0.0.1:4000 --key tk_... --profile local',
    ],
    `Without --key or --key-stdin the key is asked for with a hidden prompt, so it stays out of
shell history. Without --url the profile's saved URL is used (log in again after cms logout).
The URL may be a bare host (127.0.0.1:4000) and may end in /api.`,
  )
    .option('--key-stdin', 'read the API key from standard input')
    .option('--no-verify', 'save without checking the URL and key')
    .action(
      action<LoginFlags>(async (context, _args, options) => {
        const { site, profile: profileFlag } = context.flags;
        const config = await readConfig(io.fs, context.configFile);
        const profile = profileFlag ?? io.env.CMS_PROFILE ?? config.currentProfile ?? 'default';
        const rawUrl = context.flags.url ?? io.env.CMS_URL ?? config.profiles[profile]?.url;
        if (!rawUrl) throw new UsageError('cms login needs --url <url> (e.g. --url 127.0.0.1:4000).');
        const url = normalizeUrl(rawUrl);
        const key = await readKey(io, context.flags.key, options.keyStdin === true);
        return login({
          io,
          out: context.out,
          configFile: context.configFile,
          url,
          key,
          profile,
          site: site === undefined ? undefined : normalizeSite(site),
          verify: options.verify !== false,
          client: clientFor(url, key, io),
        });
      }),
    );
  subcommand(
    program,
    'logout',
    "Forget the API key of the current profile (or --profile's); its URL and site stay",
    ['cms logout', 'cms logout --profile prod'],
    'Log in again with cms login --key-stdin (the saved URL is reused); cms profiles remove forgets a profile entirely.',
  ).action(
    action(async (context) =>
      logout({ io, out: context.out, configFile: context.configFile, profile: context.flags.profile }),
    ),
  );
  subcommand(
    program,
    'whoami',
    'Show the server, profile and site in use, and the role of the key on each site it can access',
    ['cms whoami', 'cms whoami --json'],
  ).action(
    action(async (context) =>
      whoami({ client: await context.client(), out: context.out, connection: await context.connection() }),
    ),
  );
}
