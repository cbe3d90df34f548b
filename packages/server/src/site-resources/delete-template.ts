import type { Graph } from '../engines/port';
import { assertDeletable } from '../shared/in-use';
import { publicResourceId } from '../shared/internal-ids';
import { allNodes } from '../shared/node-pages';
import { findTemplateHolders } from './template-holders';
import { getTemplate, TEMPLATE_VERSION_LABEL, templateNodeId } from './template-repository';

/**
 * Deletes template `name` with every stored version (404 when there is none), in one
 * transaction with one audit entry. 409 `in_use` while anything holds it
 * ({@link findTemplateHolders}); templates have no cascade. A template created again under
 * the name starts at version 1.
 */
export async function deleteTemplate({
  graph,
  name,
  actor,
}: {
  graph: Graph;
  name: string;
  actor: string;
}): Promise<void> {
  await graph.transaction(async (tx) => {
    const head = await getTemplate(tx, name);
    assertDeletable({
      resource: `Template \`${name}\``,
      holders: await findTemplateHolders(tx, name),
      cascade: false,
    });
    const versions = await allNodes(tx, {
      label: TEMPLATE_VERSION_LABEL,
      where: [{ prop: 'name', op: 'eq', value: name }],
    });
    for (const version of versions) await tx.deleteNode(version.id);
    await tx.deleteNode(templateNodeId(name));
    await tx.appendAudit({
      actor,
      action: 'template.delete',
      target: publicResourceId(templateNodeId(name)),
      data: { version: head.latestVersion ?? head.version, versions: versions.length },
    });
  });
}
