import { randomUUID } from 'node:crypto';
import {
  isTrellisError,
  type SearchEmission,
  type SiteCollections,
  type SiteTheme,
  type StarterKit,
  TrellisError,
} from '@trelliscms/core';
import type { Graph, GraphEngine } from '../engines/port';
import { isEngineError } from '../engines/port';
import { stampDataVersion } from '../migrations/site-data-version';
import { SITE_DATA_VERSION } from '../migrations/site-migrations';
import type { Clock } from '../shared/clock';
import { setMembership } from './members';
import { seedStarterKit } from './seed-starter-kit';
import { collectionsOf, SITE_LABEL, type SiteRecord, siteProps, slugify } from './sites';

export interface CreateSiteInput {
  name: string;
  slug?: string;
  publicUrl?: string | null;
  description?: string;
  mantra?: string;
  theme?: SiteTheme;
  searchEmission?: SearchEmission;
  collections?: SiteCollections;
  starterKit: StarterKit;
  /** The user who becomes the site's admin. */
  creatorId: string;
  /** Who the audit chain names (a user or key id). */
  actor: string;
}

/**
 * Creates a site: a fresh graph named by a new uuid, seeded from the starter kit, then the
 * site record and the creator's admin membership in one platform transaction. An explicit
 * slug that is taken is a 409; a slug derived from the name gets a numeric suffix. If any
 * step after the graph exists fails, the graph is dropped and the error is
 * `partial_site_creation` (safe to retry).
 */
export async function createSite(params: {
  engine: GraphEngine;
  platform: Graph;
  input: CreateSiteInput;
  clock: Clock;
}): Promise<SiteRecord> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createSiteOnce(params);
    } catch (error) {
      // A concurrent create took the derived slug between the check and the write: next suffix.
      const raced = isTrellisError(error) && error.code === 'conflict' && params.input.slug === undefined;
      if (!raced || attempt >= 3) throw error;
    }
  }
}

async function createSiteOnce({
  engine,
  platform,
  input,
  clock,
}: {
  engine: GraphEngine;
  platform: Graph;
  input: CreateSiteInput;
  clock: Clock;
}): Promise<SiteRecord> {
  const slug = input.slug ?? (await freeSlug(platform, slugify(input.name)));
  if (input.slug && (await platform.getNode(`site:${slug}`))) {
    throw TrellisError.of('conflict', { detail: `A site with the slug \`${slug}\` already exists.` });
  }
  const record: SiteRecord = {
    id: `site:${slug}`,
    name: input.name,
    slug,
    graphName: randomUUID(),
    publicUrl: input.publicUrl ?? null,
    description: input.description ?? '',
    mantra: input.mantra ?? '',
    theme: { primary: '#1f6feb', accent: '#d97706', font: null, ...input.theme },
    searchEmission: input.searchEmission ?? 'bm25',
    ...collectionsOf(input.collections),
    createdAt: clock.now().toISOString(),
    createdBy: input.creatorId,
    deletedAt: null,
    purgeAfter: null,
  };

  let graph: Graph;
  try {
    graph = await engine.createGraph(record.graphName);
  } catch (error) {
    throw TrellisError.of('partial_site_creation', {}, { cause: error, extra: { step: 'graph' } });
  }
  try {
    await stampDataVersion(graph, SITE_DATA_VERSION, clock.now());
    await seedStarterKit({ graph, kit: input.starterKit, actor: input.actor, siteId: record.id, clock });
    await platform.transaction(async (tx) => {
      await tx.createNode({ id: record.id, labels: [SITE_LABEL], props: siteProps(record) });
      await setMembership(tx, {
        userId: input.creatorId,
        siteId: record.id,
        role: 'admin',
        actor: input.actor,
        action: 'member.grant',
        clock,
      });
      await tx.appendAudit({
        actor: input.actor,
        action: 'site.create',
        target: record.id,
        data: { graphName: record.graphName, starterKit: input.starterKit },
      });
    });
  } catch (error) {
    await engine.dropGraph(record.graphName).catch(() => false);
    if (isEngineError(error, 'exists')) {
      throw TrellisError.of('conflict', { detail: `A site with the slug \`${slug}\` already exists.` });
    }
    throw TrellisError.of('partial_site_creation', {}, { cause: error, extra: { step: 'seed-or-record' } });
  }
  return record;
}

/** `base`, or `base-2`, `base-3`… whichever is not taken (deleted sites keep their slug). */
async function freeSlug(platform: Graph, base: string): Promise<string> {
  for (let n = 1; n < 1000; n += 1) {
    const slug = n === 1 ? base : `${base.slice(0, 55)}-${n}`;
    if (!(await platform.getNode(`site:${slug}`))) return slug;
  }
  return `${base.slice(0, 50)}-${randomUUID().slice(0, 8)}`;
}
