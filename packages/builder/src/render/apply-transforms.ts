import type { TransformError } from '@trelliscms/core';
import type { Liquid } from 'liquidjs';
import { createLiquid } from '../liquid/create-liquid';
import type { Snapshot, SnapshotItem, SnapshotTransform } from '../snapshot/types';
import { SnapshotSource } from '../source/snapshot-source';
import { TrackingReader } from '../source/tracking-reader';

const BUILD_EVENTS = new Set(['', 'beforeRender', 'beforeBuild', 'before-render']);

/**
 * Runs the site's `beforeRender`/`beforeBuild` transforms on every item and returns a snapshot whose items
 * carry the results. Kinds: `set-field` renders `value` (Liquid, `item` in scope, no escaping)
 * into `fields[field]` (a non-string `value` is set as it is); `template` renders the named
 * template into `fields[field]`; `script` cannot run in a build and is reported. A transform
 * that fails (or is of an unknown kind) is recorded in `errors` and its change is skipped; the
 * item still renders with the fields it had. Transforms run in `order`, then by id.
 */
export function applyTransforms(params: { snapshot: Snapshot; env: string }): {
  snapshot: Snapshot;
  errors: TransformError[];
} {
  const { snapshot, env } = params;
  const transforms = (snapshot.transforms ?? [])
    .filter((t) => t.enabled !== false && BUILD_EVENTS.has(eventOf(t)))
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (transforms.length === 0) return { snapshot, errors: [] };
  const templates = new Map(
    snapshot.templates.filter((t) => t.enabled !== false).map((t) => [t.name, t.content]),
  );
  const { liquid } = createLiquid({
    templates,
    urls: { publicUrl: snapshot.site.publicUrl ?? null },
    escape: 'none',
    limits: { renderTimeMs: 2000, memoryBytes: 16_000_000 },
  });
  const reader = new TrackingReader({ source: new SnapshotSource({ snapshot, env }), urls: new Map() });
  const compiled = new Map<string, ReturnType<Liquid['parse']> | Error>();
  const errors: TransformError[] = [];
  const items = snapshot.items.map((item) => {
    let current: SnapshotItem = item;
    for (const transform of transforms) {
      if (transform.type && transform.type !== item.type) continue;
      if (transform.kind === 'set-field' && typeof transform.value !== 'string' && transform.field) {
        current = { ...current, fields: { ...current.fields, [transform.field]: transform.value ?? null } };
        continue;
      }
      try {
        const value = run(transform, current, liquid, compiled, reader);
        current = { ...current, fields: { ...current.fields, [transform.field!]: value } };
      } catch (error) {
        errors.push({
          contentId: item.id,
          transform: transform.name ?? transform.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return current;
  });
  return { snapshot: { ...snapshot, items }, errors };
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
): string {
  if (!transform.field) throw new Error('the transform names no `field` to set');
  let parsed = compiled.get(transform.id);
  if (!parsed) {
    try {
      if (transform.kind === 'set-field') parsed = liquid.parse(String(transform.value ?? ''));
      else if (transform.kind === 'template') parsed = liquid.parseFileSync(String(transform.template ?? ''));
      else if (transform.kind === 'script')
        throw new Error('script transforms run on the server, not in builds');
      else throw new Error(`unknown transform kind "${transform.kind}"`);
    } catch (error) {
      parsed = error instanceof Error ? error : new Error(String(error));
    }
    compiled.set(transform.id, parsed);
  }
  if (parsed instanceof Error) throw parsed;
  return String(liquid.renderSync(parsed, { item: reader.view(item) }));
}
