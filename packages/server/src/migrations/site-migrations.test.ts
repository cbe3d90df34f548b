import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toOldLayout } from '../../test/helpers/old-layout';
import { createItem, listItems } from '../content/item-repository';
import { createType, getType, TYPE_LABEL } from '../content/type-repository';
import { createEmbeddedEngine } from '../engines/embedded';
import { createNeo4jEngine } from '../engines/neo4j';
import type { Graph, GraphEngine } from '../engines/port';
import { assetNodeId, saveAsset, toMediaAsset } from '../media/media-store';
import { buildNodeId } from '../publishing/build-service';
import { applyLiveChanges, getLiveHead, readLive } from '../releases/live-state';
import { systemClock } from '../shared/clock';
import { allNodes } from '../shared/node-pages';
import { VIEWS } from '../site-resources/resource-specs';
import { resourceNodeId } from '../site-resources/site-resources';
import { findTemplate, listTemplateVersions, writeTemplate } from '../site-resources/template-repository';
import { RENAMED_LABELS } from './rename-internal-ids';
import { readDataVersion } from './site-data-version';
import { migrateSiteGraph, SITE_DATA_VERSION } from './site-migrations';

const ACTOR = 'user:0b6f7d2e-alice';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const neo4jUri = process.env.NEO4J_URI;
const engines: Array<{ name: string; make: (dir: string) => GraphEngine; enabled: boolean }> = [
  { name: 'embedded', make: (dir) => createEmbeddedEngine({ dataDir: dir }), enabled: true },
  {
    name: 'neo4j',
    make: () =>
      createNeo4jEngine({
        uri: neo4jUri as string,
        user: process.env.NEO4J_USER ?? 'neo4j',
        password: process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
        edition: process.env.NEO4J_EDITION === 'enterprise' ? 'enterprise' : 'community',
        auditKey: randomBytes(32),
      }),
    enabled: neo4jUri !== undefined,
  },
];

for (const { name, make, enabled } of engines) {
  describe.skipIf(!enabled)(`site data migrations (${name})`, () => {
    let dir: string;
    let engine: GraphEngine;
    let graph: Graph;
    const graphName = `mig-${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'trellis-migrations-'));
      engine = make(dir);
      await engine.init();
      graph = await engine.createGraph(graphName);
    }, 120_000);

    afterAll(async () => {
      await engine?.dropGraph(graphName).catch(() => false);
      await engine?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('reads a graph of the old layout the new way: internal ids moved, items searchable by their text', async () => {
      // What an old server wrote: a type, items (one related to the other), a template with two
      // versions, a view, a media asset, a build, and a publish (live state).
      await createType({
        graph,
        actor: ACTOR,
        clock: systemClock,
        input: {
          name: 'movie',
          label: 'Movie',
          nodeLabel: 'Movie',
          keyField: 'title',
          fields: [
            { name: 'title', type: 'string', required: true },
            { name: 'genre', type: 'enum', values: ['drama', 'noir'] },
            { name: 'cover', type: 'image' },
          ],
          relationships: [{ name: 'sequel', edgeLabel: 'SEQUEL', target: 'movie', kind: 'many-to-one' }],
        },
      });
      const movie = await getType(graph, 'movie');
      const { asset } = await saveAsset({
        graph,
        dataDir: dir,
        content: PNG,
        filename: 'poster.png',
        actor: ACTOR,
        now: new Date(),
      });
      await createItem({
        graph,
        type: movie,
        actor: ACTOR,
        input: { fields: { title: 'Vienna noir', genre: 'noir' } },
      });
      await createItem({
        graph,
        type: movie,
        actor: ACTOR,
        input: {
          fields: { title: 'The Third Man', genre: 'noir', cover: asset.id },
          relationships: { sequel: 'movie:vienna-noir' },
        },
      });
      await writeTemplate({
        graph,
        input: { name: 'home', content: '<h1>Home</h1>' },
        create: true,
        actor: ACTOR,
        clock: systemClock,
      });
      await writeTemplate({
        graph,
        input: { name: 'home', content: '<h1>Home 2</h1>' },
        create: false,
        actor: ACTOR,
        clock: systemClock,
      });
      await graph.createNode({
        id: resourceNodeId(VIEWS, 'all-movies'),
        labels: [VIEWS.label],
        props: { name: 'all-movies', type: 'movie' },
      });
      await graph.createNode({
        id: buildNodeId('b1'),
        labels: ['Build'],
        props: { buildId: 'b1', envId: 'env:prod' },
      });
      await graph.transaction((tx) =>
        applyLiveChanges(tx, {
          envId: 'env:prod',
          targets: [{ itemId: 'movie:the-third-man', version: 1, hash: 'sha256:x' }],
          cause: 'publish',
          actor: ACTOR,
          at: new Date(),
          serveBuildId: 'b1',
        }),
      );
      await toOldLayout(graph);

      // The old layout: internal nodes share the item id space, and bookkeeping is searchable.
      expect(await graph.getNode('type:movie')).not.toBeNull();
      expect(await graph.getNode('template:home@2')).not.toBeNull();
      expect(await graph.getNode(asset.id)).not.toBeNull();
      expect(await graph.getNode('live:prod:movie:the-third-man')).not.toBeNull();
      expect(await graph.getNode('livehead:prod')).not.toBeNull();
      expect(await readDataVersion(graph)).toBe(0);
      const search = async (q: string) =>
        (await listItems({ graph, type: movie, q })).items.map((item) => item.id).sort();
      expect(await search('draft')).toEqual(['movie:vienna-noir']);
      expect(await search('published')).toEqual(['movie:the-third-man']);
      expect(await search('alice')).toHaveLength(2);

      const result = await migrateSiteGraph(graph, systemClock);
      expect(result.from).toBe(0);
      expect(result.steps.map((step) => step.name)).toEqual(['search-text', 'internal-ids']);
      expect(result.steps[0]?.changed).toBe(2);
      expect(await readDataVersion(graph)).toBe(SITE_DATA_VERSION);

      // No internal node is left under an id a type name could produce.
      for (const { label } of RENAMED_LABELS) {
        for (const node of await allNodes(graph, { label }))
          expect(node.id.startsWith('~'), node.id).toBe(true);
      }
      expect(await graph.getNode('type:movie')).toBeNull();
      // Everything reads through the new ids, with the ids the API shows unchanged.
      expect((await getType(graph, 'movie')).fields).toHaveLength(3);
      expect((await findTemplate(graph, 'home'))?.content).toBe('<h1>Home 2</h1>');
      expect((await listTemplateVersions(graph, 'home')).map((t) => t.version)).toEqual([1, 2]);
      expect((await graph.getNode(resourceNodeId(VIEWS, 'all-movies')))?.props.type).toBe('movie');
      expect((await graph.getNode(buildNodeId('b1')))?.props.buildId).toBe('b1');
      const stored = await graph.getNode(assetNodeId(asset.id));
      expect(stored && toMediaAsset(stored)).toMatchObject({ id: asset.id, filename: 'poster.png' });
      expect([...(await readLive(graph, 'env:prod')).keys()]).toEqual(['movie:the-third-man']);
      expect(await getLiveHead(graph, 'env:prod')).toMatchObject({ seq: 1, buildId: 'b1' });
      expect(await graph.getEdges({ from: 'movie:the-third-man' })).toEqual([
        { from: 'movie:the-third-man', type: 'SEQUEL', to: 'movie:vienna-noir', props: {} },
      ]);
      // Search finds what users wrote, not bookkeeping.
      expect(await search('draft')).toEqual([]);
      expect(await search('published')).toEqual([]);
      expect(await search('alice')).toEqual([]);
      expect(await search(ACTOR)).toEqual([]);
      expect(await search('noir')).toEqual(['movie:vienna-noir']);
      expect(await search('third')).toEqual(['movie:the-third-man']);

      // Idempotent: a second run has nothing to do, and the type nodes are not duplicated.
      expect((await migrateSiteGraph(graph, systemClock)).steps).toEqual([]);
      expect((await allNodes(graph, { label: TYPE_LABEL })).map((node) => node.id)).toEqual(['~type:movie']);
    });
  });
}
