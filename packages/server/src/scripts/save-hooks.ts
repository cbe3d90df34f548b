import type { ContentRecord, ContentWriteInput, StoredContentType } from '@trelliscms/core';
import { updateItem, type WrittenItem } from '../content/item-repository';
import type { Graph } from '../engines/port';
import { assertHooksAllow, type ItemHookEvent, runItemHooks } from './item-hooks';
import type { ScriptHost } from './script-host';

/** What the hooks of one write need: the site's graph, the script host, the site, the actor. */
export interface HookContext {
  graph: Graph;
  host: ScriptHost;
  site: () => Promise<{ id: string; name: string; publicUrl?: string | null }>;
  actor: string;
}

/** The stored fields with a partial write's fields over them (a `null` clears a field). */
function merged(current: Record<string, unknown>, given: Record<string, unknown>): Record<string, unknown> {
  const fields = { ...current, ...given };
  for (const key in given) if (given[key] === null) delete fields[key];
  return fields;
}

/**
 * Runs the `beforeSave` hooks of a create (`current` null) or an update on the item as it would be
 * saved and gives the write to make: the given fields and those the hooks changed (a field a
 * hook removed is cleared). A refusal or a stopped hook throws 422 (nothing is written).
 */
export async function withBeforeSave(params: {
  ctx: HookContext;
  type: StoredContentType;
  input: ContentWriteInput;
  /** the stored item of an update (read only when there are hooks); null for a create */
  current: (() => Promise<ContentRecord>) | null;
}): Promise<ContentWriteInput> {
  const { ctx, type, input } = params;
  let id: string | null = null;
  const outcome = await runItemHooks({
    graph: ctx.graph,
    host: ctx.host,
    type: type.name,
    event: 'beforeSave',
    item: async () => {
      const current = params.current ? await params.current() : null;
      id = current?.id ?? null;
      return { id, type: type.name, fields: merged(current?.fields ?? {}, input.fields) };
    },
    site: ctx.site,
  });
  if (!outcome) return input;
  await reportStopped(ctx, 'beforeSave', id ?? `${type.name}:new`, outcome);
  assertHooksAllow('beforeSave', outcome);
  if (outcome.changed.length === 0) return input;
  const next = { ...input.fields };
  for (const key of outcome.changed) next[key] = outcome.fields[key] ?? null;
  return { ...input, fields: next };
}

/**
 * Runs the `beforePublish` hooks on an item about to be published: a refusal or a stopped hook
 * throws 422 (nothing is published); fields the hooks changed are saved as a new version first
 * (so the published version carries them), which is returned; null when nothing changed.
 */
export async function beforePublish(params: {
  ctx: HookContext;
  type: StoredContentType;
  record: ContentRecord;
}): Promise<WrittenItem | null> {
  const { ctx, type, record } = params;
  const outcome = await runItemHooks({
    graph: ctx.graph,
    host: ctx.host,
    type: type.name,
    event: 'beforePublish',
    item: async () => ({ id: record.id, type: type.name, fields: record.fields }),
    site: ctx.site,
  });
  if (!outcome) return null;
  await reportStopped(ctx, 'beforePublish', record.id, outcome);
  assertHooksAllow('beforePublish', outcome);
  return saveChanges(ctx, type, record, outcome.changed, outcome.fields);
}

/**
 * Runs the `afterSave` or `afterPublish` hooks on a written item. The change is made already:
 * fields the hooks changed are saved as a follow-up version (by the same actor, without firing
 * the save hooks again), which is returned; a refusal, a failure or a stop is reported (log and
 * audit entry `hook.failed` / `hook.stopped`), never thrown. Null when nothing changed.
 */
export async function afterWrite(params: {
  ctx: HookContext;
  event: Extract<ItemHookEvent, 'afterSave' | 'afterPublish'>;
  type: StoredContentType;
  record: ContentRecord;
}): Promise<WrittenItem | null> {
  const { ctx, event, type, record } = params;
  const outcome = await runItemHooks({
    graph: ctx.graph,
    host: ctx.host,
    type: type.name,
    event,
    item: async () => ({ id: record.id, type: type.name, fields: record.fields }),
    site: ctx.site,
  });
  if (!outcome) return null;
  if (outcome.stopped !== null) {
    await reportStopped(ctx, event, record.id, outcome);
    return null;
  }
  const failure = outcome.refusal?.message ?? outcome.errors[0]?.error;
  if (failure !== undefined) {
    await ctx.host.report({
      graph: ctx.graph,
      kind: 'failed',
      event,
      target: record.id,
      actor: ctx.actor,
      detail: failure,
      hooks: outcome.hooks,
    });
    return null;
  }
  try {
    return await saveChanges(ctx, type, record, outcome.changed, outcome.fields);
  } catch (error) {
    // e.g. a derived value the type refuses: the write stands, the hook is reported
    await ctx.host.report({
      graph: ctx.graph,
      kind: 'failed',
      event,
      target: record.id,
      actor: ctx.actor,
      detail: `its changes could not be saved: ${error instanceof Error ? error.message : String(error)}`,
      hooks: outcome.hooks,
    });
    return null;
  }
}

async function saveChanges(
  ctx: HookContext,
  type: StoredContentType,
  record: ContentRecord,
  changed: string[],
  fields: Record<string, unknown>,
): Promise<WrittenItem | null> {
  if (changed.length === 0) return null;
  const given: Record<string, unknown> = {};
  for (const key of changed) given[key] = fields[key] ?? null;
  return updateItem({
    graph: ctx.graph,
    type,
    id: record.id,
    input: { fields: given },
    expectedVersion: record.version ?? null,
    actor: ctx.actor,
  });
}

async function reportStopped(
  ctx: HookContext,
  event: ItemHookEvent,
  target: string,
  outcome: { stopped: string | null; hooks: string[] },
): Promise<void> {
  if (outcome.stopped === null) return;
  await ctx.host.report({
    graph: ctx.graph,
    kind: 'stopped',
    event,
    target,
    actor: ctx.actor,
    detail: outcome.stopped,
    hooks: outcome.hooks,
  });
}
