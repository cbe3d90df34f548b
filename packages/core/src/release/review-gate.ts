import { contentHash } from '../hash';
import type { Include, Review } from '../schemas/release';

/** The head (newest version) of a versionable item now, or null when the item is gone. */
export interface ItemHead {
  version: number;
  hash: string;
}

/** What the store says about one include: the item's head, and the stored hash of the included version. */
export interface IncludeFacts {
  head: ItemHead | null;
  /** The hash stored for the included version, or null when that version does not exist. */
  storedHash: string | null;
  /**
   * The item was deleted while releases pin its versions: `head` is its head at deletion (the
   * tombstone's) and the pinned versions are kept, so the include stays deployable (a warning).
   */
  deleted?: boolean;
}

/** The review of one include is named after the item it depends on. */
export function reviewName(versionableId: string): string {
  return `dependency:${versionableId}`;
}

/**
 * The dependency hash of an item: a hash of its head (id, version, hash). A review records it;
 * when the item gets a new version the hash changes and the review is stale.
 */
export function dependencyHash(versionableId: string, head: ItemHead | null): string {
  return contentHash({ versionableId, version: head?.version ?? null, hash: head?.hash ?? null });
}

/**
 * Runs the reviews of a release: one required review per include. Blocking findings: the
 * included version does not exist, its hash differs from the stored one, or the item is gone.
 * A newer version of the item than the included one is a warning, and so is an item deleted
 * while its versions are kept for releases (a tombstone).
 */
export function runReviews({
  includes,
  facts,
  now,
}: {
  includes: readonly Include[];
  facts: ReadonlyMap<string, IncludeFacts>;
  now: Date;
}): Review[] {
  return includes.map((include) => {
    const fact = facts.get(include.versionableId) ?? { head: null, storedHash: null };
    const findings: Review['findings'] = [];
    const id = include.versionableId;
    if (fact.storedHash === null) {
      findings.push({
        severity: 'blocking',
        message: `Version ${include.version} of ${id} does not exist.`,
        versionableId: id,
      });
    } else if (fact.storedHash !== include.hash) {
      findings.push({
        severity: 'blocking',
        message: `The hash of ${id} version ${include.version} is ${fact.storedHash}, not the included ${include.hash}.`,
        versionableId: id,
      });
    }
    if (fact.head === null) {
      findings.push({ severity: 'blocking', message: `${id} no longer exists.`, versionableId: id });
    } else if (fact.deleted) {
      findings.push({
        severity: 'warning',
        message: `${id} was deleted; its version ${include.version} is kept for this release.`,
        versionableId: id,
      });
    } else if (fact.head.version > include.version) {
      findings.push({
        severity: 'warning',
        message: `${id} has a newer version (${fact.head.version}) than the included ${include.version}.`,
        versionableId: id,
      });
    }
    const isBlocked = findings.some((finding) => finding.severity === 'blocking');
    return {
      name: reviewName(id),
      versionableId: id,
      required: true,
      status: isBlocked ? 'failed' : 'passed',
      stale: false,
      dependencyHash: dependencyHash(id, fact.head),
      findings,
      reviewedAt: now.toISOString(),
    } satisfies Review;
  });
}

/** The verdict of the review gate: the reviews with `stale` set now, and why a deploy is refused. */
export interface ReviewGateVerdict {
  isOpen: boolean;
  reviews: Review[];
  /** Messages of blocking findings. */
  blocking: string[];
  /** Items whose required review is stale or missing. */
  stale: string[];
}

/**
 * The review gate of a deploy (docs/api-spec.md §3): closed when a review has a blocking finding, or a
 * required review is stale (its dependency hash differs from the item's head now: the item
 * got a new version since the review), or an include has no review at all.
 */
export function checkReviewGate({
  includes,
  reviews,
  heads,
}: {
  includes: readonly Include[];
  reviews: readonly Review[];
  heads: ReadonlyMap<string, ItemHead | null>;
}): ReviewGateVerdict {
  const blocking: string[] = [];
  const stale: string[] = [];
  const checked = reviews.map((review) => {
    const id = review.versionableId;
    const isStale =
      id !== undefined && review.dependencyHash !== undefined
        ? review.dependencyHash !== dependencyHash(id, heads.get(id) ?? null)
        : review.stale;
    if (review.required && isStale) stale.push(id ?? review.name);
    for (const finding of review.findings) {
      if (finding.severity === 'blocking') blocking.push(finding.message);
    }
    return { ...review, stale: isStale };
  });
  const reviewed = new Set(reviews.map((review) => review.versionableId));
  for (const include of includes) {
    if (!reviewed.has(include.versionableId)) stale.push(include.versionableId);
  }
  return { isOpen: blocking.length === 0 && stale.length === 0, reviews: checked, blocking, stale };
}
