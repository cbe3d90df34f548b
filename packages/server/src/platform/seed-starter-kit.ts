import type { Graph } from '../engines/port';
import { STARTER_KITS, type StarterKit } from './starter-kits';

/**
 * Writes a starter kit's content types and templates into a new site's graph in one
 * transaction, audited as `site.seed`.
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
  await graph.transaction(async (tx) => {
    const now = new Date().toISOString();
    for (const type of contents.types) {
      await tx.putNode({
        id: `type:${type.name}`,
        labels: ['ContentType'],
        props: { ...type, createdAt: now, updatedAt: now },
      });
    }
    for (const template of contents.templates) {
      await tx.putNode({
        id: `template:${template.name}`,
        labels: ['Template'],
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
