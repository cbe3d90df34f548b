import type { ContentType, StarterKit } from '@trelliscms/core';
import { createType } from '../content/type-repository';
import type { Graph } from '../engines/port';
import type { Clock } from '../shared/clock';
import { writeTemplate } from '../site-resources/template-repository';
import { STARTER_KITS } from './starter-kits';

/**
 * Writes a starter kit into a new site's graph through the same repositories as
 * `POST /types` and `POST /templates` (validated, versioned and audited as those are), then
 * audits the seed itself as `site.seed`.
 */
export async function seedStarterKit({
  graph,
  kit,
  actor,
  siteId,
  clock,
}: {
  graph: Graph;
  kit: StarterKit;
  actor: string;
  siteId: string;
  clock: Clock;
}): Promise<void> {
  const contents = STARTER_KITS[kit];
  for (const type of contents.types) {
    await createType({ graph, input: type as ContentType, actor, clock });
  }
  for (const template of contents.templates) {
    await writeTemplate({ graph, input: template, create: true, actor, clock });
  }
  await graph.transaction(async (tx) => {
    await tx.appendAudit({
      actor,
      action: 'site.seed',
      target: siteId,
      data: { starterKit: kit, types: contents.types.length, templates: contents.templates.length },
    });
  });
}
