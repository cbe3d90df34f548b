import type { Graph, GraphReader, GraphWriter } from '../engines/port';
import { internalNodeId } from '../shared/internal-ids';

/**
 * Which data migrations (site-migrations.ts) a site graph has been through: one node
 * `~meta:data-version` labelled `SiteDataVersion` with `{version, applied}`, where `applied`
 * lists each step with when it ran. A graph without it is at version 0 (written before
 * migrations existed); a site created now starts at the latest version.
 */

export const DATA_VERSION_LABEL = 'SiteDataVersion';
export const DATA_VERSION_NODE_ID = internalNodeId('meta', 'data-version');

/** One applied migration step. */
export interface AppliedMigration {
  version: number;
  name: string;
  at: string;
  /** How many nodes the step changed. */
  changed: number;
}

/** The data version of a site graph (0 when none is recorded). */
export async function readDataVersion(reader: GraphReader): Promise<number> {
  const node = await reader.getNode(DATA_VERSION_NODE_ID);
  const version = node?.props.version;
  return typeof version === 'number' ? version : 0;
}

/** Records that the graph is at `step.version`, appending the step to the history. */
export async function recordDataVersion(tx: GraphWriter, step: AppliedMigration): Promise<void> {
  const node = await tx.getNode(DATA_VERSION_NODE_ID);
  const applied = Array.isArray(node?.props.applied) ? (node.props.applied as AppliedMigration[]) : [];
  await tx.putNode({
    id: DATA_VERSION_NODE_ID,
    labels: [DATA_VERSION_LABEL],
    props: { version: step.version, applied: [...applied, step] },
  });
}

/** Marks a new, empty site graph as being at `version` (it has nothing to migrate). */
export async function stampDataVersion(graph: Graph, version: number, at: Date): Promise<void> {
  await graph.putNode({
    id: DATA_VERSION_NODE_ID,
    labels: [DATA_VERSION_LABEL],
    props: { version, applied: [], createdAt: at.toISOString() },
  });
}
