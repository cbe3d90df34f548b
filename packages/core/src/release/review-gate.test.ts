import { describe, expect, it } from 'vitest';
import type { Include } from '../schemas/release';
import { checkReviewGate, dependencyHash, type IncludeFacts, runReviews } from './review-gate';

const now = new Date('2026-03-01T10:00:00.000Z');
const include = (id: string, version: number, hash: string): Include => ({
  kind: 'content',
  versionableId: id,
  version,
  hash,
  at: now.toISOString(),
});

describe('runReviews', () => {
  it('passes an include whose version exists with its hash, recording the head dependency hash', () => {
    const facts = new Map<string, IncludeFacts>([
      ['post:a', { head: { version: 2, hash: 'h2' }, storedHash: 'h2' }],
    ]);
    const [review] = runReviews({ includes: [include('post:a', 2, 'h2')], facts, now });
    expect(review).toMatchObject({ status: 'passed', required: true, stale: false, versionableId: 'post:a' });
    expect(review?.dependencyHash).toBe(dependencyHash('post:a', { version: 2, hash: 'h2' }));
    expect(review?.findings).toEqual([]);
  });

  it('blocks a missing version, a hash mismatch and a deleted item; warns on a newer version', () => {
    const facts = new Map<string, IncludeFacts>([
      ['post:missing', { head: { version: 1, hash: 'x' }, storedHash: null }],
      ['post:tampered', { head: { version: 1, hash: 'real' }, storedHash: 'real' }],
      ['post:gone', { head: null, storedHash: 'h' }],
      ['post:old', { head: { version: 3, hash: 'h3' }, storedHash: 'h1' }],
    ]);
    const reviews = runReviews({
      includes: [
        include('post:missing', 4, 'x'),
        include('post:tampered', 1, 'fake'),
        include('post:gone', 1, 'h'),
        include('post:old', 1, 'h1'),
      ],
      facts,
      now,
    });
    expect(reviews.map((review) => review.status)).toEqual(['failed', 'failed', 'failed', 'passed']);
    expect(reviews[3]?.findings).toEqual([expect.objectContaining({ severity: 'warning' })]);
  });

  it('warns, without blocking, on an item deleted while its included version is kept (tombstone)', () => {
    const facts = new Map<string, IncludeFacts>([
      ['post:kept', { head: { version: 2, hash: 'h2' }, storedHash: 'h1', deleted: true }],
    ]);
    const [review] = runReviews({ includes: [include('post:kept', 1, 'h1')], facts, now });
    expect(review?.status).toBe('passed');
    expect(review?.findings).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('was deleted') }),
    ]);
  });
});

describe('checkReviewGate', () => {
  const includes = [include('post:a', 1, 'h1')];
  const facts = new Map<string, IncludeFacts>([
    ['post:a', { head: { version: 1, hash: 'h1' }, storedHash: 'h1' }],
  ]);
  const reviews = runReviews({ includes, facts, now });

  it('is open when the heads did not move', () => {
    const verdict = checkReviewGate({
      includes,
      reviews,
      heads: new Map([['post:a', { version: 1, hash: 'h1' }]]),
    });
    expect(verdict).toMatchObject({ isOpen: true, blocking: [], stale: [] });
  });

  it('is closed, with the review stale, once the item got a new version', () => {
    const verdict = checkReviewGate({
      includes,
      reviews,
      heads: new Map([['post:a', { version: 2, hash: 'h2' }]]),
    });
    expect(verdict.isOpen).toBe(false);
    expect(verdict.stale).toEqual(['post:a']);
    expect(verdict.reviews[0]?.stale).toBe(true);
  });

  it('is closed on a blocking finding and on an include without a review', () => {
    const failed = runReviews({ includes, facts: new Map(), now });
    const heads = new Map([['post:a', null]]);
    expect(checkReviewGate({ includes, reviews: failed, heads }).blocking.length).toBeGreaterThan(0);
    const unreviewed = checkReviewGate({ includes, reviews: [], heads: new Map() });
    expect(unreviewed).toMatchObject({ isOpen: false, stale: ['post:a'] });
  });
});
