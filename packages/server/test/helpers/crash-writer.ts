/**
 * The child process of the crash test (`crash-safety.test.ts`): writes transactions to a graph
 * in a loop until it is killed. Each transaction writes `batchSize` Item nodes sharing one
 * batch id (every other batch through createNodes/mergeEdges), edges between them, an embedding and one audit record, then prints
 * `committed <batch>` once the commit is acknowledged. Every third batch (n % 3 === 2) is its
 * nodes and audit record only, written with createNodeRunDetached (off the main thread).
 *
 * Usage: node --import tsx crash-writer.ts <dataDir> <graph> <batchSize> <prefix>
 */
import { createEmbeddedEngine } from '../../src/engines/embedded/index';

const [dataDir, graphName, batchSizeArg, prefix] = process.argv.slice(2);
if (!dataDir || !graphName || !batchSizeArg || !prefix) {
  console.error('usage: crash-writer <dataDir> <graph> <batchSize> <prefix>');
  process.exit(2);
}
const batchSize = Number(batchSizeArg);
const filler = 'lorem ipsum dolor sit amet '.repeat(40);

const engine = createEmbeddedEngine({ dataDir });
await engine.init();
const graph = await engine.openGraph(graphName);
if (graph === null) throw new Error(`no graph ${graphName}`);
process.stdout.write('ready\n');

for (let n = 0; ; n++) {
  const batch = `${prefix}-${n}`;
  if (n % 3 === 2) {
    // Every third batch: nodes and an audit record in one transaction written off the main
    // thread (createNodeRunDetached, as an import's batch of new items), no edges.
    const props = Array.from({ length: batchSize }, (_, i) => ({ batch, i, text: `${batch} ${filler}` }));
    const outcome = await graph.createNodeRunDetached!({
      run: {
        labels: ['Item'],
        ids: props.map((_, i) => `${batch}:${i}`),
        propsJson: props.map((p) => JSON.stringify(p)),
        searchText: props.map((p) => p.text),
        uniqueProps: props,
      },
      absent: [],
      audit: { actor: 'crash-writer', action: 'batch.write', target: batch, data: { count: batchSize } },
    });
    if (outcome !== 'written') throw new Error(`batch ${batch} was ${outcome}`);
    process.stdout.write(`committed ${batch}\n`);
    continue;
  }
  await graph.transaction(async (tx) => {
    const node = (i: number) => ({
      id: `${batch}:${i}`,
      labels: ['Item'],
      props: { batch, i, text: `${batch} ${filler}` },
    });
    const edge = (i: number) => ({
      from: `${batch}:${i - 1}`,
      type: 'NEXT',
      to: `${batch}:${i}`,
      props: { batch },
    });
    if (n % 2 === 1) {
      // Every other batch goes through the batch writes (multi-row statements).
      await tx.createNodes(Array.from({ length: batchSize }, (_, i) => node(i)));
      await tx.mergeEdges(Array.from({ length: batchSize - 1 }, (_, i) => edge(i + 1)));
    } else {
      for (let i = 0; i < batchSize; i++) {
        await tx.createNode(node(i));
        if (i > 0) await tx.mergeEdge(edge(i));
      }
    }
    await tx.setEmbedding(`${batch}:0`, [1, n % 7, 0.5]);
    await tx.appendAudit({
      actor: 'crash-writer',
      action: 'batch.write',
      target: batch,
      data: { count: batchSize },
    });
  });
  process.stdout.write(`committed ${batch}\n`);
}
