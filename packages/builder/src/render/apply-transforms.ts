import type { TransformError } from '@trelliscms/core';
import type { Liquid } from 'liquidjs';
import { createLiquid, isRenderTimeLimit } from '../liquid/create-liquid';
import type { ScriptRunner } from '../sandbox/script-runner';
import type { Snapshot, SnapshotItem, SnapshotScript, SnapshotTransform } from '../snapshot/types';
import { SnapshotSource } from '../source/snapshot-source';
import { TrackingReader } from '../source/tracking-reader';

/** The events whose transforms a build runs on its items, in this order. */
const BUILD_EVENTS = ['beforeBuild', '', 'beforeRender', 'before-render'];

/** ms one transform may take on one item (liquidjs `renderLimit`), unless given. */
export const DEFAULT_TRANSFORM_TIME_MS = 2000;

/** ms all of a build's transforms may take together, unless given. */
export const DEFAULT_TRANSFORM_BUDGET_MS = 30_000;

/** Limits of a build's transforms. */
export interface TransformLimits {
  /** ms one transform may take on one item; default {@link DEFAULT_TRANSFORM_TIME_MS} */
  transformTimeMs?: number;
  /** ms the build's transforms may take in all; default {@link DEFAULT_TRANSFORM_BUDGET_MS} */
  transformBudgetMs?: number;
}

/** What {@link applyTransforms} made of a snapshot. */
export interface TransformOutcome {
  snapshot: Snapshot;
  errors: TransformError[];
  /**
   * why the transforms stopped before the end (a transform ran past its time limit, or all of
   * them past the build's budget): the items from there on keep the fields they had. The build
   * fails with `transforms_stopped` then. null when every transform ran.
   */
  stopped: string | null;
  /** the scripts that refused an item (threw, or returned `{error}`), with their own message; also in `errors` */
  refusals: TransformRefusal[];
}

/** A script's refusal of an item, in the script's own words. */
export interface TransformRefusal {
  contentId: string;
  transform: string;
  message: string;
}

/** The transforms a build runs, in order: enabled, of a build event (`beforeBuild` first, then `beforeRender`), by `order` then id. */
export function buildTransforms(snapshot: Snapshot): SnapshotTransform[] {
  // a script bound to a build event runs as a script transform of its own
  const bound: SnapshotTransform[] = (snapshot.scripts ?? [])
    .filter((script) => script.event === 'beforeBuild' || script.event === 'beforeRender')
    .map((script) => ({
      id: `script-${script.name}`,
      name: `script ${script.name}`,
      kind: 'script',
      script: script.name,
      event: script.event as 'beforeBuild' | 'beforeRender',
      type: script.type ?? null,
      enabled: script.enabled,
      order: 0,
    }));
  return [...(snapshot.transforms ?? []), ...bound]
    .filter((t) => t.enabled !== false && BUILD_EVENTS.includes(eventOf(t)))
    .sort(
      (a, b) =>
        stageOf(a) - stageOf(b) ||
        (a.order ?? 0) - (b.order ?? 0) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
}

/** `beforeBuild` transforms run before `beforeRender` ones. */
function stageOf(transform: SnapshotTransform): number {
  return eventOf(transform) === 'beforeBuild' ? 0 : 1;
}

/** Whether a build's transforms run a script (the script sandbox must be loaded for them). */
export function hasScriptTransforms(snapshot: Snapshot): boolean {
  return buildTransforms(snapshot).some((transform) => transform.kind === 'script');
}

/**
 * Runs the site's `beforeRender`/`beforeBuild` transforms on every item and returns a snapshot whose items
 * carry the results. Kinds: `set-field` renders `value` (Liquid, `item` in scope, no escaping)
 * into `fields[field]` (a non-string `value` is set as it is); `template` renders the named
 * template into `fields[field]`; `script` runs the named script in the QuickJS sandbox
 * (`runScript`, see `loadScriptRunner`) and merges the fields it returns. A transform
 * that fails (or is of an unknown kind) is recorded in `errors` and its change is skipped; the
 * item still renders with the fields it had. Transforms run in `order`, then by id.
 *
 * Time is bounded for real: each render has at most `transformTimeMs`, and never more than
 * what is left of `transformBudgetMs` for the whole build. A transform stopped by its time
 * limit (a loop without end, most likely) or by the spent budget stops them all: `stopped`
 * says why, and the remaining items keep their fields. This runs in the calling thread; a
 * build runs it in a worker thread (`applyTransformsInWorker`), never on a server's main thread.
 */
export function applyTransforms(
  params: { snapshot: Snapshot; env: string; runScript?: ScriptRunner } & TransformLimits,
): TransformOutcome {
  const { snapshot, env } = params;
  const transforms = buildTransforms(snapshot);
  if (transforms.length === 0) return { snapshot, errors: [], stopped: null, refusals: [] };
  const itemTimeMs = params.transformTimeMs ?? DEFAULT_TRANSFORM_TIME_MS;
  const budgetMs = params.transformBudgetMs ?? DEFAULT_TRANSFORM_BUDGET_MS;
  const deadline = performance.now() + budgetMs;
  const templates = new Map(
    snapshot.templates.filter((t) => t.enabled !== false).map((t) => [t.name, t.content]),
  );
  const { liquid } = createLiquid({
    templates,
    urls: { publicUrl: snapshot.site.publicUrl ?? null },
    escape: 'none',
    limits: { renderTimeMs: itemTimeMs, memoryBytes: 16_000_000 },
  });
  const reader = new TrackingReader({ source: new SnapshotSource({ snapshot, env }), urls: new Map() });
  const scripts = new Map((snapshot.scripts ?? []).map((script) => [script.name, script]));
  const compiled = new Map<string, ReturnType<Liquid['parse']> | Error>();
  const errors: TransformError[] = [];
  const refusals: TransformRefusal[] = [];
  let stopped: string | null = null;
  const items = snapshot.items.map((item) => {
    let current: SnapshotItem = item;
    for (const transform of transforms) {
      if (stopped !== null) break;
      if (transform.type && transform.type !== item.type) continue;
      if (transform.kind === 'set-field' && typeof transform.value !== 'string' && transform.field) {
        current = { ...current, fields: { ...current.fields, [transform.field]: transform.value ?? null } };
        continue;
      }
      const left = deadline - performance.now();
      const name = transform.name ?? transform.id;
      if (left <= 0) {
        stopped = `the transforms ran past their budget of ${budgetMs} ms for the build (at transform "${name}" on ${item.id}); the items from there on were not transformed`;
        break;
      }
      const limitMs = Math.min(itemTimeMs, left);
      if (transform.kind === 'script') {
        const step = runScriptTransform({
          transform,
          item: current,
          script: scripts.get(transform.script ?? ''),
          runScript: params.runScript,
          site: snapshot.site,
          env,
          limitMs,
        });
        if (step.fields) current = { ...current, fields: step.fields };
        if (step.error !== null) errors.push({ contentId: item.id, transform: name, error: step.error });
        if (step.refusal !== null)
          refusals.push({ contentId: item.id, transform: name, message: step.refusal });
        if (step.stopped !== null) {
          // the budget cut the script short only when what was left is below its own limit
          const scriptMs = scripts.get(transform.script ?? '')?.timeoutMs ?? Number.POSITIVE_INFINITY;
          stopped =
            step.stopped === 'timeout' && limitMs < itemTimeMs && limitMs < scriptMs
              ? `the transforms ran past their budget of ${budgetMs} ms for the build (at transform "${name}" on ${item.id}); the items from there on were not transformed`
              : `transform "${name}" was stopped on ${item.id}: ${step.error}; the transforms were stopped and the items from there on were not transformed`;
        }
        continue;
      }
      try {
        const value = run(transform, current, liquid, compiled, reader, Math.max(1, Math.floor(limitMs)));
        current = { ...current, fields: { ...current.fields, [transform.field!]: value } };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        errors.push({ contentId: item.id, transform: name, error: message });
        if (isRenderTimeLimit(error)) {
          stopped =
            limitMs < itemTimeMs
              ? `the transforms ran past their budget of ${budgetMs} ms for the build (at transform "${name}" on ${item.id}); the items from there on were not transformed`
              : `transform "${name}" ran past its time limit of ${itemTimeMs} ms on ${item.id} (a loop without end?); the transforms were stopped and the items from there on were not transformed`;
        }
      }
    }
    return current;
  });
  return { snapshot: { ...snapshot, items }, errors, stopped, refusals };
}

/** What one script transform did to an item: its new fields, its error, why it was stopped. */
interface ScriptStep {
  fields: Record<string, unknown> | null;
  error: string | null;
  stopped: 'timeout' | 'memory' | 'stack' | null;
  /** the script's own message when it refused the item */
  refusal: string | null;
}

/**
 * Runs a `script` transform's script on an item in the QuickJS sandbox, with `{event, item, site, env}`
 * as its input, within the script's `timeoutMs` (never past `limitMs`). A script returns the
 * item (or `{fields}`): its fields are merged over the item's; nothing leaves the item alone.
 */
function runScriptTransform(params: {
  transform: SnapshotTransform;
  item: SnapshotItem;
  script: SnapshotScript | undefined;
  runScript: ScriptRunner | undefined;
  site: Snapshot['site'];
  env: string;
  limitMs: number;
}): ScriptStep {
  const { transform, item, script, runScript } = params;
  const none = (error: string): ScriptStep => ({ fields: null, error, stopped: null, refusal: null });
  if (!script) return none(`the script "${transform.script}" does not exist`);
  if (script.enabled === false) return none(`the script "${script.name}" is disabled`);
  if (!runScript) return none('script transforms need the script sandbox (loadScriptRunner)');
  const outcome = runScript({
    name: script.name,
    source: script.source,
    input: {
      event: eventOf(transform) || 'beforeRender',
      env: params.env,
      item: { id: item.id, type: item.type, fields: item.fields },
      site: { id: params.site.id, name: params.site.name, publicUrl: params.site.publicUrl ?? null },
    },
    timeoutMs: Math.max(1, Math.floor(Math.min(script.timeoutMs ?? params.limitMs, params.limitMs))),
    memoryMb: script.memoryMb,
  });
  if (outcome.status === 'stopped') {
    return { fields: null, error: outcome.message, stopped: outcome.reason, refusal: null };
  }
  if (outcome.status === 'rejected') {
    return { ...none(`script "${script.name}": ${outcome.message}`), refusal: outcome.message };
  }
  const fields = returnedFields(outcome.value);
  if (fields === undefined) {
    return none(`script "${script.name}" returned neither the item (with fields) nor nothing`);
  }
  return {
    fields: fields === null ? null : { ...item.fields, ...fields },
    error: null,
    stopped: null,
    refusal: null,
  };
}

/** The fields a script returned (`{fields}`), null for nothing, undefined for something else. */
export function returnedFields(value: unknown): Record<string, unknown> | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { fields } = value as { fields?: unknown };
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
  return fields as Record<string, unknown>;
}

/** A transform's event; snapshots of older servers name it `hook` (`before-render`). */
function eventOf(transform: SnapshotTransform): string {
  const { hook } = transform as { hook?: unknown };
  return transform.event ?? (typeof hook === 'string' ? hook : '');
}

function run(
  transform: SnapshotTransform,
  item: SnapshotItem,
  liquid: Liquid,
  compiled: Map<string, ReturnType<Liquid['parse']> | Error>,
  reader: TrackingReader,
  renderLimit: number,
): string {
  if (!transform.field) throw new Error('the transform names no `field` to set');
  let parsed = compiled.get(transform.id);
  if (!parsed) {
    try {
      if (transform.kind === 'set-field') parsed = liquid.parse(String(transform.value ?? ''));
      else if (transform.kind === 'template') parsed = liquid.parseFileSync(String(transform.template ?? ''));
      else throw new Error(`unknown transform kind "${transform.kind}"`);
    } catch (error) {
      parsed = error instanceof Error ? error : new Error(String(error));
    }
    compiled.set(transform.id, parsed);
  }
  if (parsed instanceof Error) throw parsed;
  return String(liquid.renderSync(parsed, { item: reader.view(item) }, { renderLimit }));
}
