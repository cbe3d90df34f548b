import { createLiquid } from './liquid/create-liquid';
import type { Snapshot } from './snapshot/types';
import { SnapshotSource } from './source/snapshot-source';
import { TrackingReader } from './source/tracking-reader';

/**
 * Renders Liquid source in this thread against a snapshot (previews, tests): the site's
 * templates serve as partials and layouts, the custom tags read the snapshot. `item` (an id)
 * is put in scope as `item`. Throws the liquidjs error when the template fails; builds never do.
 */
export function renderTemplate(params: {
  snapshot: Snapshot;
  content: string;
  env?: string;
  item?: string;
  scope?: Record<string, unknown>;
}): string {
  const templates = new Map(
    params.snapshot.templates.filter((t) => t.enabled !== false).map((t) => [t.name, t.content]),
  );
  const { liquid, slot } = createLiquid({
    templates,
    urls: { publicUrl: params.snapshot.site.publicUrl ?? null },
  });
  const reader = new TrackingReader({
    source: new SnapshotSource({ snapshot: params.snapshot, env: params.env }),
    urls: new Map(),
  });
  slot.reader = reader;
  const scope: Record<string, unknown> = {
    site: params.snapshot.site,
    env: params.env ?? 'dev',
    ...params.scope,
  };
  if (params.item) scope.item = reader.item(params.item);
  return String(liquid.parseAndRenderSync(params.content, scope));
}
