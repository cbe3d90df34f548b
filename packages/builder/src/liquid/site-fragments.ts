import { hash } from 'node:crypto';
import { canonicalJson } from '@trelliscms/core/build';
import type { Snapshot, SnapshotPageKit, SnapshotWidget } from '../snapshot/types';

// Widgets and page kits are Liquid fragments of the site beside its templates. Each is held in
// the Liquid environment's templates under a name no template can have (template names hold no
// `:`), so `{% render %}`, the template closure and the dependency hashes treat them as
// templates: `widget:<name>`, `pagekit:<id>`, and per widget area `widgets:<area>` (the hash of
// the area's enabled widgets in order, with their settings), which a page reading
// `widgets.<area>` records.

/** The template name of a widget's Liquid source. */
export function widgetTemplateName(name: string): string {
  return `widget:${name}`;
}

/** The template name of a page kit's Liquid fragment. */
export function pageKitTemplateName(id: string): string {
  return `pagekit:${id}`;
}

/** The dependency name of a widget area: its hash changes when any of its widgets does. */
export function widgetAreaKey(area: string): string {
  return `widgets:${area}`;
}

/** The enabled widgets of each area, in ascending `order`, then by name. */
export function widgetAreas(snapshot: Pick<Snapshot, 'widgets'>): Map<string, SnapshotWidget[]> {
  const areas = new Map<string, SnapshotWidget[]>();
  for (const widget of snapshot.widgets ?? []) {
    if (widget.enabled === false || typeof widget.template !== 'string') continue;
    const list = areas.get(widget.area);
    if (list) list.push(widget);
    else areas.set(widget.area, [widget]);
  }
  for (const list of areas.values()) {
    list.sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return areas;
}

/** The Liquid sources of the site's widgets and page kits (with a template), by template name. */
export function fragmentTemplates(snapshot: Pick<Snapshot, 'widgets' | 'pageKits'>): Map<string, string> {
  const out = new Map<string, string>();
  for (const widget of snapshot.widgets ?? []) {
    if (widget.enabled !== false && typeof widget.template === 'string')
      out.set(widgetTemplateName(widget.name), widget.template);
  }
  for (const kit of snapshot.pageKits ?? []) {
    if (typeof kit.template === 'string') out.set(pageKitTemplateName(kit.id), kit.template);
  }
  return out;
}

/** The dependency hash of each widget area (what it shows: its widgets in order with their settings). */
export function widgetAreaHashes(snapshot: Pick<Snapshot, 'widgets'>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [area, widgets] of widgetAreas(snapshot)) {
    const shown = widgets.map((w) => [w.name, w.template, w.settings ?? {}]);
    out.set(widgetAreaKey(area), hash('sha256', canonicalJson(shown), 'base64url'));
  }
  return out;
}

/** The page kits by id. */
export function pageKitsById(snapshot: Pick<Snapshot, 'pageKits'>): Map<string, SnapshotPageKit> {
  return new Map((snapshot.pageKits ?? []).map((kit) => [kit.id, kit]));
}
