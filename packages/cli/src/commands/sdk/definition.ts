import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { sdkGenerate } from './sdk';

export interface SdkGenerateFlags {
  out?: string;
}

/** `cms sdk generate` */
export function defineSdkCommands(program: Command, { io, action }: CommandKit): void {
  const sdk = program.command('sdk').description("A TypeScript client typed by the site's content types");
  subcommand(
    sdk,
    'generate',
    'Write types.d.ts and client.ts for the site',
    ['cms sdk generate', 'cms sdk generate --out src/trellis'],
    'Regenerate after changing a content type. client.ts imports @trelliscms/sdk, which the project needs as a dependency.',
  )
    .option('--out <dir>', 'the folder to write them to (default: ./trellis)')
    .action(
      action<SdkGenerateFlags>(async (context, _args, options) =>
        sdkGenerate({ site: await context.site(), out: context.out, io, dir: options.out }),
      ),
    );
}
