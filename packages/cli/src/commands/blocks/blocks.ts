import { ExitCode } from '../../errors';
import { parseJsonObject } from '../../io/read-json-file';
import { fullId } from '../content/content';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms blocks add <type> <id> <blockType> --data '{…}'`: appends (or inserts at `order`) a block to an item's body. */
export async function blocksAdd({
  site,
  out,
  type,
  id,
  blockType,
  data,
  references,
  order,
}: Deps & {
  type: string;
  id: string;
  blockType: string;
  data?: string;
  references?: string[];
  order?: number;
}): Promise<number> {
  const itemId = fullId(type, id);
  const answer = await site.content.appendBlock(type, itemId, {
    blockType,
    fields: data ? parseJsonObject(data, '--data') : {},
    ...(references && references.length > 0 ? { references } : {}),
    ...(order === undefined ? {} : { order }),
  });
  out.result(
    answer,
    () =>
      `Added ${blockType} block ${answer.block.id} to ${itemId} (${answer.body.blocks.length} block(s)${answer.version ? `, version ${answer.version}` : ''}).`,
  );
  return ExitCode.ok;
}

/** `cms blocks rm <type> <id> <blockId>`: removes a block from an item's body. */
export async function blocksRemove({
  site,
  out,
  type,
  id,
  blockId,
}: Deps & { type: string; id: string; blockId: string }): Promise<number> {
  const itemId = fullId(type, id);
  const answer = await site.content.removeBlock(type, itemId, blockId);
  out.result(
    answer,
    () => `Removed block ${blockId} from ${itemId} (${answer.body.blocks.length} block(s) left).`,
  );
  return ExitCode.ok;
}
