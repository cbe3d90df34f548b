import type { OutputChannel } from '@trelliscms/core';
import {
  type ArtifactSpec,
  type BuildPlan,
  FEED_PATH,
  planArtifacts,
  replan,
  templatesKey,
} from '../plan/plan-artifacts';
import { siteLocalesOf, urlKeyOf } from '../plan/site-locales';
import { graphHashOf } from '../source/tracking-reader';
import type { Changes } from './detect-changes';
import type { LoadedContent } from './load';

/** The build's plan, and which items a page may read differently because of it. */
export interface Planned {
  plan: BuildPlan;
  /** `templatesKey` of the templates the plan was made with ('' without a cache) */
  templatesKey: string;
  /** items whose dependency hash changed: their content, or their URL */
  depChanged: Set<string>;
  /** the types of those items */
  depTypes: Set<string>;
  /** types of items whose URL changed without a content change */
  urlTypes: Set<string>;
  /**
   * hash of the edges and the visible items' ids (a change makes every traversal suspect);
   * computed when first read (a full build reads it only once its pages render, see `build`)
   */
  readonly graphHash: string;
}

/**
 * Stage 3, plan: every artifact of the build with its path. The prior build's plan is brought up
 * to date instead when nothing that places pages changed (then no URL changed either).
 */
export function plan(params: {
  env: string;
  content: LoadedContent;
  changes: Changes;
  /** the output channels of the build: pages of others are not planned */
  channels?: ReadonlySet<OutputChannel>;
}): Planned {
  const { env, content, changes } = params;
  const { snapshot, source } = content;
  const { tracked, items } = changes;
  const prior = tracked?.prior ?? null;
  const key = tracked ? templatesKey(snapshot.templates) : '';
  const replanned =
    tracked &&
    prior?.plan &&
    prior.plan.templatesKey === key &&
    changes.edgesSame &&
    !changes.membershipChanged &&
    items.size === snapshot.items.length
      ? replan({
          previous: prior.plan.plan,
          snapshot,
          source,
          lists: tracked.lists,
          routes: tracked.cache.routes,
          changed: changes.contentChanged,
          changedTypes: changes.changedTypes,
        })
      : null;
  const planned = inChannels(
    replanned ??
      planArtifacts({ snapshot, source, env, lists: tracked?.lists, routes: tracked?.cache.routes }),
    params.channels,
  );
  const depChanged = new Set(changes.contentChanged);
  const depTypes = new Set(changes.changedTypes);
  const urlTypes = new Set<string>();
  if (!replanned) {
    // an item's entry holds its URL in every locale: a page may link to any of them
    const { codes } = siteLocalesOf(snapshot);
    for (const [id, entry] of items) {
      const url = codes.length === 0 ? (planned.urls.get(id) ?? '') : urlKeyOf(planned.urls, id, codes);
      if (entry.url !== url) {
        if (prior?.items.get(id) === entry) items.set(id, { ...entry, url });
        else entry.url = url;
      }
      if (!prior || depChanged.has(id) || prior.items.get(id)?.url === url) continue;
      depChanged.add(id);
      depTypes.add(entry.type);
      urlTypes.add(entry.type);
    }
  }
  // a pass over every edge (0.6 s at 100,000 items): not on the way to the first page
  let graphHash =
    prior && changes.edgesSame && !changes.membershipChanged ? (prior.graphHash as string | null) : null;
  return {
    plan: planned,
    templatesKey: key,
    depChanged,
    depTypes,
    urlTypes,
    get graphHash() {
      graphHash ??= graphHashOf(source);
      return graphHash;
    },
  };
}

/** A route or view page that is a feed: its path ends in a feed extension (`/feed.xml`). */
export function isFeed(spec: ArtifactSpec): boolean {
  return spec.kind === 'route' && FEED_PATH.test(spec.path);
}

/**
 * The plan without the pages of channels the build does not emit (`pages`, `feeds`); item URLs
 * stay as planned (links keep pointing where the pages are). The same plan when all are emitted.
 */
function inChannels(planned: BuildPlan, channels: ReadonlySet<OutputChannel> | undefined): BuildPlan {
  if (!channels || (channels.has('pages') && channels.has('feeds'))) return planned;
  const artifacts = planned.artifacts.filter((spec) => channels.has(isFeed(spec) ? 'feeds' : 'pages'));
  return artifacts.length === planned.artifacts.length ? planned : { ...planned, artifacts };
}
