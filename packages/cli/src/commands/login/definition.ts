import { createClient, type TrellisClient } from '@trelliscms/sdk';
import type { Command } from 'commander';
import { UsageError } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import { type CommandKit, subcommand } from '../command-kit';
import { login } from './login';

/** The options of `cms login` besides the global ones (--url, --key, --site and --profile). */
export interface LoginFlags {
  /** `false` with `--no-verify`. */
  verify: boolean;
}

/** A client for `url`; a URL that is not http(s) is a usage error. */
function clientFor(url: string, key: string | undefined, io: CliIo): TrellisClient {
  if (!/^https?:\/\/[^/]/.test(url))
    throw new UsageError(`The server URL must start with http:// or https:// (got ${url}).`);
  return createClient({ baseUrl: url, apiKey: key, fetch: io.fetch });
}

/** `cms login`: --url, --key, --site and --profile are the global options, required here. */
export function defineLoginCommand(program: Command, { io, action }: CommandKit): void {
  subcommand(
    program,
    'login',
    'Save --url and --key as a profile (checked with the server first); --site sets its default site',
    'cms login --url http://127.0.0.1:4000 --key tk_... --profile local',
  )
    .option('--no-verify', 'save without checking the URL and key')
    .action(
      action<LoginFlags>(async (context, _args, options) => {
        const { url, key, site, profile = 'default' } = context.flags;
        if (!url || !key) throw new UsageError('cms login needs --url <url> and --key <key>.');
        const client = clientFor(url, key, io);
        return login({
          io,
          out: context.out,
          configFile: context.configFile,
          url,
          key,
          profile,
          site,
          verify: options.verify !== false,
          client,
        });
      }),
    );
}
