import { checkReviewGate, type TrellisEvent } from '@trelliscms/core';
import type { Graph } from '../engines/port';
import type { EventSink } from '../events/event-bus';
import { RELEASE_LABEL, toRelease } from './release-records';
import { includeHeads } from './releases';

/** A mark that a review's staleness was announced (one per review and reviewed hash). */
const STALE_MARK_LABEL = 'ReviewStaleMark';

/** Releases whose reviews still matter: waiting for approval or approved. */
const OPEN_STATES = ['pending', 'approved'];

/**
 * Finds the reviews that went stale when item `itemId` changed — a review of it in an open
 * (pending or approved) release whose dependency hash no longer matches the item
 * (`checkReviewGate` of core, the rule the deploy gate applies) — and emits `review.stale` once
 * per review and reviewed hash (a mark node in the site graph remembers, so another change
 * of the same item, or another server, does not announce it again).
 */
export async function announceStaleReviews({
  graph,
  siteId,
  itemId,
  events,
}: {
  graph: Graph;
  siteId: string;
  itemId: string;
  events: EventSink;
}): Promise<number> {
  const page = await graph.findNodes({
    label: RELEASE_LABEL,
    where: [{ prop: 'state', op: 'in', value: OPEN_STATES }],
    limit: 1000,
  });
  let announced = 0;
  for (const release of page.nodes.map(toRelease)) {
    const reviews = (release.reviews ?? []).filter(
      (review) => review.versionableId === itemId && review.dependencyHash !== undefined,
    );
    if (reviews.length === 0) continue;
    const verdict = checkReviewGate({
      includes: release.includes,
      reviews,
      heads: await includeHeads(graph, release.includes),
    });
    for (const review of verdict.reviews) {
      if (!review.stale) continue;
      const markId = `reviewstale:${release.id}:${itemId}:${review.name}:${review.dependencyHash}`;
      const isNew = await graph.transaction(async (tx) => {
        if (await tx.getNode(markId)) return false;
        await tx.createNode({
          id: markId,
          labels: [STALE_MARK_LABEL],
          props: { releaseId: release.id },
          searchText: '',
        });
        return true;
      });
      if (!isNew) continue;
      announced += 1;
      events.emit({
        type: 'review.stale',
        siteId,
        data: {
          releaseId: release.id,
          releaseName: release.name,
          releaseState: release.state,
          itemId,
          review: review.name,
          required: review.required,
        },
      });
    }
  }
  return announced;
}

/** The event listener: looks for stale reviews after each change of an item's content. */
export function reviewStalenessWatcher({
  openGraph,
  events,
}: {
  openGraph: (siteId: string) => Promise<Graph | null>;
  events: EventSink;
}) {
  return async (event: TrellisEvent): Promise<number> => {
    if (event.type !== 'item.updated' && event.type !== 'item.deleted') return 0;
    const itemId = event.data.id;
    if (typeof itemId !== 'string') return 0;
    const graph = await openGraph(event.siteId);
    return graph ? announceStaleReviews({ graph, siteId: event.siteId, itemId, events }) : 0;
  };
}
