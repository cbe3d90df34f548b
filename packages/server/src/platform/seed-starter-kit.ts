import { type ContentType, CreateRouteBody, type StarterKit } from '@trelliscms/core';
import { createItem } from '../content/item-repository';
import { createType, getTypeForWrite } from '../content/type-repository';
import type { Graph } from '../engines/port';
import type { Clock } from '../shared/clock';
import { ROUTES } from '../site-resources/resource-specs';
import { resourceAuditId, resourceNodeId } from '../site-resources/site-resources';
import { writeTemplate } from '../site-resources/template-repository';
import { STARTER_KITS } from './starter-kits';

/**
 * Writes a starter kit into a new site's graph through the same repositories as
 * `POST /types`, `POST /templates` and `POST /content/{type}` (validated, versioned and audited
 * as those are) and its routes as `POST /routes` stores them, then audits the seed itself as
 * `site.seed`.
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
  for (const item of contents.items) {
    const type = await getTypeForWrite(graph, item.type);
    await createItem({
      graph,
      type,
      input: { fields: item.fields, ...(item.relationships ? { relationships: item.relationships } : {}) },
      actor,
    });
  }
  const now = clock.now().toISOString();
  await graph.transaction(async (tx) => {
    for (const route of contents.routes) {
      const body = CreateRouteBody.parse(route);
      await tx.createNode({
        id: resourceNodeId(ROUTES, route.slug),
        labels: [ROUTES.label],
        props: { ...body, createdAt: now, updatedAt: now },
      });
      await tx.appendAudit({ actor, action: 'routes.create', target: resourceAuditId(ROUTES, route.slug) });
    }
    await tx.appendAudit({
      actor,
      action: 'site.seed',
      target: siteId,
      data: {
        starterKit: kit,
        types: contents.types.length,
        templates: contents.templates.length,
        items: contents.items.length,
        routes: contents.routes.length,
      },
    });
  });
}
