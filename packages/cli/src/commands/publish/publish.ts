import type { BulkPublishResponse, ContentRecord, ContentStatus } from '@trelliscms/core';
import { ExitCode, UsageError } from '../../errors';
import { fullId } from '../content/content';
import type { SiteCommandDeps } from '../context';

/** Which way `cms publish` and `cms unpublish` go. */
export type PublishDirection = 'publish' | 'unpublish';

export interface PublishOptions {
  direction: PublishDirection;
  /** The type of the items named by `ids` (positional). */
  type?: string;
  ids: string[];
  /** Every item of this type (narrowed by `status` and `q`). */
  byType?: string;
  status?: ContentStatus;
  q?: string;
  env?: string;
}

/** What the command sends: one item, many ids, or a query over one type. */
type Target =
  | { kind: 'one'; type: string; id: string }
  | { kind: 'ids'; ids: string[] }
  | { kind: 'query'; type: string; status?: ContentStatus; q?: string };

function targetOf(options: PublishOptions): Target {
  const verb = options.direction;
  if (options.byType !== undefined) {
    if (options.type !== undefined) {
      throw new UsageError(`Name items as <type> <id...>, or every item of a type with --type, not both.`);
    }
    return { kind: 'query', type: options.byType, status: options.status, q: options.q };
  }
  if (options.status !== undefined || options.q !== undefined) {
    throw new UsageError(`--status and --q narrow --type: cms ${verb} --type post --status draft`);
  }
  if (options.type === undefined || options.ids.length === 0) {
    throw new UsageError(
      `Name what to ${verb}: <type> <id> (one item), <type> <id> <id>... (many), or --type <type> [--status s] [--q text].`,
    );
  }
  const type = options.type;
  if (options.ids.length === 1) return { kind: 'one', type, id: fullId(type, options.ids[0]!) };
  return { kind: 'ids', ids: [...new Set(options.ids.map((id) => fullId(type, id)))] };
}

const past = (direction: PublishDirection) => (direction === 'publish' ? 'Published' : 'Unpublished');

/**
 * `cms publish` and `cms unpublish`: one item (its own route, answering the item), or many ids
 * or every item of a type matching `--status`/`--q` (one bulk request, one live revision).
 * `env` defaults on the server to the lowest-order environment above dev (prod).
 */
export async function publish({
  site,
  out,
  ...options
}: Pick<SiteCommandDeps, 'site' | 'out'> & PublishOptions): Promise<number> {
  const target = targetOf(options);
  const env = options.env;
  if (target.kind === 'one') {
    const body = env === undefined ? {} : { env };
    const item: ContentRecord =
      options.direction === 'publish'
        ? await site.content.publish(target.type, target.id, body)
        : await site.content.unpublish(target.type, target.id, body);
    out.result(
      item,
      () =>
        `${past(options.direction)} ${item.id}${env ? ` ${options.direction === 'publish' ? 'to' : 'from'} ${env}` : ''}${
          item.version ? ` (version ${item.version})` : ''
        }; live in: ${(item.publishedEnvs ?? []).join(', ') || 'no environment'}.`,
    );
    return ExitCode.ok;
  }
  const body =
    target.kind === 'ids'
      ? { env, ids: target.ids }
      : { env, type: target.type, status: target.status, q: target.q };
  const answer: BulkPublishResponse =
    options.direction === 'publish'
      ? await site.content.publishMany(body)
      : await site.content.unpublishMany(body);
  out.result(answer, () => {
    const lines = [
      `${past(options.direction)} ${answer.changed} item(s) ${options.direction === 'publish' ? 'to' : 'from'} ${answer.envId}; ${answer.unchanged} unchanged; live revision ${answer.revision}.`,
    ];
    for (const id of answer.ids.slice(0, 20)) lines.push(`  ${id}`);
    if (answer.ids.length > 20) lines.push(`  … and ${answer.ids.length - 20} more (--json lists them all)`);
    return lines;
  });
  return answer.ok ? ExitCode.ok : ExitCode.partial;
}
