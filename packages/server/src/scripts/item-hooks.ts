import {
  type Script,
  type SiteSnapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type Transform,
  type TransformError,
  TrellisError,
} from '@trelliscms/core';
import type { Graph, GraphReader } from '../engines/port';
import { OTHER_RESOURCES, TRANSFORMS } from '../site-resources/resource-specs';
import { listSiteResources } from '../site-resources/site-resources';
import { listTemplates } from '../site-resources/template-repository';
import type { ScriptHost } from './script-host';

/** The events of an item's life the server fires hooks at (the build fires the others). */
export type ItemHookEvent = 'beforeSave' | 'afterSave' | 'beforePublish' | 'afterPublish';

/** ms one hook may take (a script's own `timeoutMs` is at most this), and all of one event's hooks together. */
export const HOOK_TIME_MS = 30_000;

const SCRIPTS = OTHER_RESOURCES.find((spec) => spec.base === 'scripts')!;

/** The item a hook sees: its id (null before its first save: hooks see `<type>:new`), type and fields. */
export interface HookItem {
  id: string | null;
  type: string;
  fields: Record<string, unknown>;
}

/** What an event's hooks made of an item. */
export interface HookOutcome {
  /** the item's fields after the hooks */
  fields: Record<string, unknown>;
  /** the names of the fields the hooks changed */
  changed: string[];
  /** the hooks that ran, in order */
  hooks: string[];
  /** the first script that refused the item, in its own words */
  refusal: { hook: string; message: string } | null;
  /** why the hooks were stopped (a script past its time or memory limit), else null */
  stopped: string | null;
  errors: TransformError[];
}

/**
 * The hooks of `event` for items of `type`: the enabled transforms of that event and the
 * enabled scripts bound to it (a script bound to an event runs as a `script` transform of
 * order 0), for that type or every type, in ascending `order` then id.
 */
export async function hooksOf(
  graph: GraphReader,
  event: ItemHookEvent,
  type: string,
): Promise<{ transforms: Transform[]; scripts: Script[] }> {
  const applies = (resource: { event?: unknown; enabled?: unknown; type?: unknown }) =>
    resource.event === event &&
    resource.enabled !== false &&
    (resource.type === null || resource.type === undefined || resource.type === type);
  const [transforms, scripts] = await Promise.all([
    listSiteResources(graph, TRANSFORMS) as Promise<Transform[]>,
    listSiteResources(graph, SCRIPTS) as Promise<Script[]>,
  ]);
  const bound: Transform[] = scripts.filter(applies).map((script) => ({
    id: `script-${script.name}`,
    name: `script ${script.name}`,
    event,
    type: script.type ?? null,
    kind: 'script',
    script: script.name,
    enabled: true,
    order: 0,
  }));
  const hooks = [...transforms.filter(applies), ...bound].sort(
    (a, b) => (a.order ?? 0) - (b.order ?? 0) || a.id.localeCompare(b.id),
  );
  return { transforms: hooks, scripts };
}

/**
 * Runs the hooks of `event` on `item` in the script host's sandbox (off the request thread):
 * `set-field` and `template` transforms render their Liquid, `script` transforms and bound
 * scripts run in QuickJS, all within {@link HOOK_TIME_MS} together. Null when the event has no
 * hooks for the item's type (nothing was read beyond the hook lists).
 */
export async function runItemHooks(params: {
  graph: Graph;
  host: ScriptHost;
  /** the item's type */
  type: string;
  event: ItemHookEvent;
  /** the item (read only when there are hooks) */
  item: () => Promise<HookItem>;
  /** the site (read only when there are hooks) */
  site: () => Promise<{ id: string; name: string; publicUrl?: string | null }>;
}): Promise<HookOutcome | null> {
  const { graph, host, event } = params;
  const { transforms, scripts } = await hooksOf(graph, event, params.type);
  if (transforms.length === 0) return null;
  const item = await params.item();
  const site = await params.site();
  const templates = transforms.some((t) => t.kind === 'template') ? await listTemplates(graph) : [];
  const id = item.id ?? `${item.type}:new`;
  const snapshot = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    site: { id: site.id, name: site.name, publicUrl: site.publicUrl ?? null },
    types: [],
    items: [{ id, type: item.type, fields: item.fields }],
    edges: [],
    templates,
    // the builder runs transforms of build events: each hook runs as one, at its turn
    transforms: transforms.map((transform) => ({ ...transform, event: 'beforeRender' as const })),
    // scripts bound to events run through `transforms` above, not again as bound ones
    scripts: scripts.map((script) => ({ ...script, event: 'manual' as const })),
  } as unknown as SiteSnapshot;
  const outcome = await host.transforms({
    snapshot: snapshot as never,
    env: 'dev',
    transformTimeMs: HOOK_TIME_MS,
    transformBudgetMs: HOOK_TIME_MS,
  });
  const fields = outcome.snapshot.items[0]?.fields ?? item.fields;
  const keys = new Set([...Object.keys(item.fields), ...Object.keys(fields)]);
  const changed = [...keys].filter((key) => JSON.stringify(fields[key]) !== JSON.stringify(item.fields[key]));
  const refusal = outcome.refusals[0];
  return {
    fields,
    changed,
    hooks: transforms.map((t) => t.name),
    refusal: refusal ? { hook: refusal.transform, message: refusal.message } : null,
    stopped: outcome.stopped,
    errors: outcome.errors,
  };
}

/**
 * The answer to a `before*` event's hooks: throws 422 `hook_stopped` when a hook was stopped,
 * 422 `hook_rejected` when a script refused the item (its message is the error) or a hook
 * failed; returns when every hook ran.
 */
export function assertHooksAllow(event: ItemHookEvent, outcome: HookOutcome): void {
  const extra = { event, hooks: outcome.hooks };
  if (outcome.stopped !== null) {
    throw TrellisError.of('hook_stopped', { event, detail: outcome.stopped }, { extra });
  }
  if (outcome.refusal) {
    throw TrellisError.of(
      'hook_rejected',
      { detail: outcome.refusal.message },
      { extra: { ...extra, hook: outcome.refusal.hook } },
    );
  }
  const failed = outcome.errors[0];
  if (failed) {
    throw TrellisError.of(
      'hook_rejected',
      { detail: `the ${event} hook "${failed.transform}" failed: ${failed.error}` },
      { extra: { ...extra, hook: failed.transform } },
    );
  }
}
