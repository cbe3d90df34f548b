import type { ContentType } from '@trelliscms/core';
import { createType } from '../content/type-repository';
import type { Graph } from '../engines/port';
import { STARTER_KITS, type StarterKit } from './starter-kits';

/** Node label of templates in a site graph (until the templates repository lands; see the report of issue 4). */
const TEMPLATE_LABEL = 'Template';

/**
 * Writes a starter kit into a new site's graph: its content types through the content
 * type repository (validated and stored exactly as POST /types stores them), then its
 * templates at version 1, audited as `site.seed`.
 */
export async function seedStarterKit({
  graph,
  kit,
  actor,
  siteId,
}: {
  graph: Graph;
  kit: StarterKit;
  actor: string;
  siteId: string;
}): Promise<void> {
  const contents = STARTER_KITS[kit];
  for (const type of contents.types) {
    await createType({ graph, input: type as ContentType, actor });
  }
  await graph.transaction(async (tx) => {
    const now = new Date().toISOString();
    for (const template of contents.templates) {
      await tx.putNode({
        id: `template:${template.name}`,
        labels: [TEMPLATE_LABEL],
        props: { ...template, version: 1, latestVersion: 1, enabled: true, updatedAt: now },
      });
    }
    await tx.appendAudit({
      actor,
      action: 'site.seed',
      target: siteId,
      data: { starterKit: kit, types: contents.types.length, templates: contents.templates.length },
    });
  });
}
