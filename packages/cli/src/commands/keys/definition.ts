import { ApiKeyRole } from '@trelliscms/core';
import { type Command, Option } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { keysCreate, keysList, keysRevoke } from './keys';

export interface KeysCreateFlags {
  name: string;
  role: ApiKeyRole;
  graph?: boolean;
}

/** `cms keys list|create|revoke` */
export function defineKeysCommands(program: Command, { action }: CommandKit): void {
  const keys = program.command('keys').description('API keys of the site');
  subcommand(keys, 'list', 'List keys (never their secrets)', 'cms keys list').action(
    action(async (context) => keysList({ site: await context.site(), out: context.out })),
  );
  subcommand(keys, 'create', 'Mint a key; its secret is printed once', [
    'cms keys create --name ci --role publisher',
    'cms keys create --name etl --role editor --graph',
  ])
    .requiredOption('--name <name>', 'key name')
    .addOption(new Option('--role <role>', 'role').choices(ApiKeyRole.options).makeOptionMandatory())
    .option(
      '--graph',
      "an engine-direct graph-level key (tg_…): bound to this site's graph, needs no X-Site-Id",
    )
    .action(
      action<KeysCreateFlags>(async (context, _args, options) =>
        keysCreate({
          site: await context.site(),
          out: context.out,
          body: { name: options.name, role: options.role, ...(options.graph ? { graph: true } : {}) },
        }),
      ),
    );
  subcommand(keys, 'revoke', 'Revoke a key', 'cms keys revoke key_123')
    .argument('<id>', 'key id')
    .action(
      action(async (context, [id]) => keysRevoke({ site: await context.site(), out: context.out, id: id! })),
    );
}
