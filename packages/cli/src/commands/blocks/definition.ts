import type { Command } from 'commander';
import { type CommandKit, group, subcommand, toNonNegativeInt } from '../command-kit';
import { blocksAdd, blocksRemove } from './blocks';

/** `cms blocks add|rm`: the blocks of an item's body. */
export function defineBlocksCommands(program: Command, { action }: CommandKit): void {
  const blocks = group(program, 'blocks', "Blocks of an item's body: add, remove", [
    `cms blocks add post hello quote --data '{"text": "Less is more"}'`,
    'cms blocks rm post hello b3',
  ]);
  subcommand(
    blocks,
    'add',
    "Add a block to an item's body (at the end, or at --order)",
    `cms blocks add post hello quote --data '{"text": "Less is more"}'`,
    'The block type is one of the site (cms block-types list); its fields are checked against it.',
  )
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .argument('<blockType>', 'block type name')
    .option('--data <json>', "the block's fields as a JSON object")
    .option('--ref <id...>', 'items the block refers to')
    .option('--order <n>', 'position in the body (0 is first)', toNonNegativeInt)
    .action(
      action<{ data?: string; ref?: string[]; order?: number }>(
        async (context, [type, id, blockType], options) =>
          blocksAdd({
            site: await context.site(),
            out: context.out,
            type: type!,
            id: id!,
            blockType: blockType!,
            data: options.data,
            references: options.ref,
            order: options.order,
          }),
      ),
    );
  subcommand(blocks, 'rm', "Remove a block from an item's body (alias delete)", 'cms blocks rm post hello b3')
    .alias('delete')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .argument('<blockId>', 'block id (cms content get shows the body)')
    .action(
      action(async (context, [type, id, blockId]) =>
        blocksRemove({
          site: await context.site(),
          out: context.out,
          type: type!,
          id: id!,
          blockId: blockId!,
        }),
      ),
    );
}
