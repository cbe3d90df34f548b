import type { TransformError } from '@trelliscms/core';
import { contentHash } from '@trelliscms/core/build';
import { fragmentTemplates, widgetAreaHashes } from '../liquid/site-fragments';
import { siteLocalesOf, stringsDepName } from '../plan/site-locales';
import { applyTransforms, hasScriptTransforms, type TransformLimits } from '../render/apply-transforms';
import type { RenderPool } from '../render/render-pool';
import { hashText } from '../render/renderer';
import { applyTransformsInWorker } from '../sandbox/apply-transforms-in-worker';
import { loadScriptRunner } from '../sandbox/script-runner';
import { assertSnapshot, isSnapshot } from '../snapshot/read-snapshot';
import type { Snapshot } from '../snapshot/types';
import type { ContentSource } from '../source/content-source';
import { SnapshotSource } from '../source/snapshot-source';

/**
 * Bumped when the builder's output for the same input changes, or how pages record what they
 * read (3: items per field, query results without their items' content): forces full builds.
 */
export const BUILDER_OUTPUT_VERSION = 3;

/**
 * The hash of everything that, when it changes, makes every page suspect: a full build follows.
 * `channels`: the output channels of a build that does not emit all of them.
 */
export function globalHashOf(
  snapshot: Snapshot,
  env: string,
  mediaBaseUrl: string | null,
  channels?: readonly string[] | null,
): string {
  return contentHash({
    ...(channels && channels.length > 0 ? { channels: [...channels].sort() } : {}),
    builder: BUILDER_OUTPUT_VERSION,
    env,
    mediaBaseUrl,
    site: snapshot.site,
    types: snapshot.types,
    transforms: snapshot.transforms ?? [],
    // a script change changes what script transforms give (absent: hashes of older snapshots stay)
    ...(snapshot.scripts?.length ? { scripts: snapshot.scripts } : {}),
    routes: snapshot.routes ?? [],
    views: snapshot.views ?? [],
    // a saved query's definition changes what every page running it shows
    ...(snapshot.queries && snapshot.queries.length > 0 ? { queries: snapshot.queries } : {}),
    // the locales place pages and decide every fallback (UI strings are page dependencies)
    ...(snapshot.locales && snapshot.locales.length > 0 ? { locales: snapshot.locales } : {}),
    ...(snapshot.assets?.length ? { assets: snapshot.assets } : {}),
  });
}

/** The content of a build, read and checked once: what every later stage reads. */
export interface LoadedContent {
  /** the snapshot as read, before transforms */
  input: Snapshot;
  /** the snapshot with the build's transforms applied: what is planned and rendered */
  snapshot: Snapshot;
  /** `snapshot` as a content source (in-memory indexes) for the planner, the lists and the emitter */
  source: SnapshotSource;
  transformErrors: TransformError[];
  /** why the transforms stopped before the end (time limit, budget), or null: the build fails then */
  transformsStopped: string | null;
  /** the snapshot has no public URL (its absolute URLs use `previewBaseUrl`, or are root-relative) */
  publicUrlMissing: boolean;
  /** see {@link globalHashOf} */
  globalHash: string;
  /** enabled template name → content hash; `~strings:<locale>` → hash of the locale's UI strings */
  templateHashes: Map<string, string>;
  /**
   * '' without transforms; else the template hashes (a transform may render any template, and
   * item hashes describe items before transforms): when it changes, nothing cached is reusable
   */
  transformKey: string;
}

/**
 * Stage 1, load: reads the source's snapshot once, checks it, applies the transforms (in a
 * worker thread of their own with `inWorker`, as every build with render workers does, so the
 * calling thread stays free: see `applyTransformsInWorker`).
 */
export async function load(params: {
  source: ContentSource | Snapshot;
  env: string;
  mediaBaseUrl: string | null;
  /** the output channels, when the build does not emit all of them */
  channels?: readonly string[] | null;
  limits?: TransformLimits;
  inWorker?: boolean;
  /** the render pool of the build, whose transforms sandbox stays warm between builds */
  pool?: RenderPool | null;
  /** the base of absolute URLs when the snapshot's site has no public URL */
  previewBaseUrl?: string | null;
}): Promise<LoadedContent> {
  const { env } = params;
  const raw = isSnapshot(params.source) ? params.source : await params.source.snapshot();
  const checked = assertSnapshot(raw);
  const publicUrlMissing = !checked.site.publicUrl;
  const input =
    publicUrlMissing && params.previewBaseUrl
      ? { ...checked, site: { ...checked.site, publicUrl: params.previewBaseUrl } }
      : checked;
  const transformParams = { snapshot: input, env, ...params.limits };
  const {
    snapshot,
    errors: transformErrors,
    stopped: transformsStopped,
  } = params.inWorker
    ? await applyTransformsInWorker(
        transformParams,
        params.pool ? (mb) => params.pool!.liquidSandbox(mb) : undefined,
      )
    : applyTransforms({
        ...transformParams,
        ...(hasScriptTransforms(input) ? { runScript: await loadScriptRunner() } : {}),
      });
  const templateHashes = new Map(
    snapshot.templates.filter((t) => t.enabled !== false).map((t) => [t.name, hashText(t.content)]),
  );
  // the UI strings of each locale are recorded like templates by the pages that read them (`t`)
  const locales = siteLocalesOf(snapshot);
  for (const code of locales.codes) templateHashes.set(stringsDepName(code), locales.stringsHash(code));
  // widgets and page kits are recorded like templates (see liquid/site-fragments.ts)
  for (const [name, content] of fragmentTemplates(snapshot)) templateHashes.set(name, hashText(content));
  for (const [key, hash] of widgetAreaHashes(snapshot)) templateHashes.set(key, hash);
  return {
    input,
    snapshot,
    source: new SnapshotSource({ snapshot, env }),
    transformErrors,
    transformsStopped,
    publicUrlMissing,
    globalHash: globalHashOf(input, env, params.mediaBaseUrl, params.channels),
    templateHashes,
    transformKey:
      snapshot === input ? '' : [...templateHashes].map(([name, hash]) => `${name}=${hash}`).join('\n'),
  };
}
