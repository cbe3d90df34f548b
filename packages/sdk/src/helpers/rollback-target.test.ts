import type { Deployment } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { pickRollbackTarget } from './rollback-target';

const now = new Date('2026-05-01T12:00:00.000Z');

/** A deployment of `release` made and live at `at` (ISO), deployed unless told. */
function deployment(id: string, release: string, at: string, extra: Partial<Deployment> = {}): Deployment {
  return {
    id: `deploy:${id}`,
    status: 'deployed',
    validFrom: at,
    environmentId: 'env:prod',
    releaseId: `release:${release}`,
    createdAt: at,
    ...extra,
  };
}

describe('pickRollbackTarget', () => {
  it('goes from the live deployment to the latest earlier one of another release, in any input order', () => {
    const a = deployment('1', 'a', '2026-05-01T09:00:00.000Z');
    const b = deployment('2', 'b', '2026-05-01T10:00:00.000Z');
    const c = deployment('3', 'c', '2026-05-01T11:00:00.000Z');
    expect(pickRollbackTarget([c, a, b], now)).toEqual({ live: c, target: b });
  });

  it('skips earlier deployments of the live release and never-live ones (pending, failed)', () => {
    const a = deployment('1', 'a', '2026-05-01T08:00:00.000Z');
    const b1 = deployment('2', 'b', '2026-05-01T09:00:00.000Z');
    const failed = deployment('3', 'c', '2026-05-01T09:30:00.000Z', { status: 'failed' });
    const b2 = deployment('4', 'b', '2026-05-01T10:00:00.000Z');
    const future = deployment('5', 'd', '2026-05-01T13:00:00.000Z', {
      status: 'pending',
      createdAt: '2026-05-01T10:30:00.000Z',
    });
    expect(pickRollbackTarget([a, b1, failed, b2, future], now)).toEqual({ live: b2, target: a });
  });

  it('after a rollback, the live one is the rollback and the target the release it replaced', () => {
    const a = deployment('1', 'a', '2026-05-01T09:00:00.000Z');
    const b = deployment('2', 'b', '2026-05-01T10:00:00.000Z', {
      status: 'superseded',
      supersededAt: '2026-05-01T11:00:00.000Z',
      supersededBy: 'deploy:3',
    });
    const back = deployment('3', 'a', '2026-05-01T11:00:00.000Z', { rollbackOf: 'deploy:2' });
    expect(pickRollbackTarget([back, b, a], now)).toEqual({ live: back, target: b });
  });

  it('orders a past-dated deployment by when it was made, then by creation and id', () => {
    // Made at 11:00 with a validFrom of 08:00: it went live at 11:00, after b.
    const late = deployment('1', 'a', '2026-05-01T08:00:00.000Z', { createdAt: '2026-05-01T11:00:00.000Z' });
    const b = deployment('2', 'b', '2026-05-01T10:00:00.000Z');
    expect(pickRollbackTarget([late, b], now)).toEqual({ live: late, target: b });
    const x = deployment('7', 'x', '2026-05-01T10:00:00.000Z');
    const y = deployment('8', 'y', '2026-05-01T10:00:00.000Z');
    expect(pickRollbackTarget([y, x], now)).toEqual({ live: y, target: x });
  });

  it('says why when nothing is live or no other release was', () => {
    expect(pickRollbackTarget([], now)).toEqual({ reason: 'nothing_live' });
    const pending = deployment('1', 'a', '2026-05-02T00:00:00.000Z', { status: 'pending' });
    expect(pickRollbackTarget([pending], now)).toEqual({ reason: 'nothing_live' });
    const a1 = deployment('1', 'a', '2026-05-01T09:00:00.000Z');
    const a2 = deployment('2', 'a', '2026-05-01T10:00:00.000Z');
    expect(pickRollbackTarget([a1, a2], now)).toEqual({ reason: 'no_earlier_release' });
  });
});
