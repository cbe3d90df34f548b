import type { Graph, GraphEngine } from '../engines/port';
import { SITE_LABEL } from '../platform/sites';
import type { Clock } from '../shared/clock';
import { nodePages } from '../shared/node-pages';
import { reindexSearchText } from './reindex-search-text';
import { renameInternalIds } from './rename-internal-ids';
import { readDataVersion, recordDataVersion } from './site-data-version';

/**
 * Data migrations of site graphs: what an upgrade must change in data written by an earlier
 * version of the server (the engines migrate their own storage layout themselves). Each step
 * has a version; a graph records the last it went through (site-data-version.ts), and the
 * server brings every site graph to the latest when it starts ({@link migrateSiteGraphs}).
 * Steps are idempotent and work in transactions of a page of nodes, so a step interrupted by
 * a crash, or run by two servers at once, is finished by the next run; the version is recorded
 * once a step has gone through all of the graph.
 */
export interface SiteMigration {
  version: number;
  name: string;
  /** Changes the graph; returns how many nodes it changed. */
  run(graph: Graph): Promise<number>;
}

export const SITE_MIGRATIONS: readonly SiteMigration[] = [
  { version: 1, name: 'search-text', run: reindexSearchText },
  { version: 2, name: 'internal-ids', run: renameInternalIds },
];

/** The data version of a graph every migration has gone through (what a new site starts at). */
export const SITE_DATA_VERSION = SITE_MIGRATIONS[SITE_MIGRATIONS.length - 1]!.version;

/** The steps one graph went through in one run. */
export interface MigratedGraph {
  graph: string;
  from: number;
  steps: Array<{ version: number; name: string; changed: number }>;
}

/**
 * Brings one site graph to {@link SITE_DATA_VERSION}. A graph of a newer version (a newer
 * server wrote it) is left alone.
 */
export async function migrateSiteGraph(graph: Graph, clock: Clock): Promise<MigratedGraph> {
  const from = await readDataVersion(graph);
  const steps: MigratedGraph['steps'] = [];
  for (const step of SITE_MIGRATIONS) {
    if (step.version <= from) continue;
    const changed = await step.run(graph);
    await graph.transaction(async (tx) => {
      // Another server may have finished this step (and later ones) meanwhile.
      if ((await readDataVersion(tx)) >= step.version) return;
      await recordDataVersion(tx, {
        version: step.version,
        name: step.name,
        at: clock.now().toISOString(),
        changed,
      });
    });
    steps.push({ version: step.version, name: step.name, changed });
  }
  return { graph: graph.name, from, steps };
}

/**
 * Migrates the graph of every site the platform graph lists (deleted ones too, while their
 * graph is kept), one after the other. Returns the graphs that changed.
 */
export async function migrateSiteGraphs({
  engine,
  platform,
  clock,
}: {
  engine: GraphEngine;
  platform: Graph;
  clock: Clock;
}): Promise<MigratedGraph[]> {
  const migrated: MigratedGraph[] = [];
  for await (const page of nodePages(platform, { label: SITE_LABEL }, 500)) {
    for (const site of page) {
      const name = site.props.graphName;
      if (typeof name !== 'string') continue;
      const graph = await engine.openGraph(name);
      if (graph === null) continue;
      const result = await migrateSiteGraph(graph, clock);
      if (result.steps.length > 0) migrated.push(result);
    }
  }
  return migrated;
}
