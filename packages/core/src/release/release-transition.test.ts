import { describe, expect, it } from 'vitest';
import { assertReleaseTransition, isDeployableState, type ReleaseStateName } from './release-transition';

const states: ReleaseStateName[] = ['draft', 'pending', 'approved', 'deployed'];

describe('assertReleaseTransition', () => {
  it('runs reviews on every move to pending (submit or forced re-review)', () => {
    for (const from of states)
      expect(assertReleaseTransition({ from, to: 'pending' })).toEqual({ runsReviews: true });
  });

  it('approves a pending release and sends it back to draft', () => {
    expect(assertReleaseTransition({ from: 'pending', to: 'approved' })).toEqual({ runsReviews: false });
    expect(assertReleaseTransition({ from: 'pending', to: 'draft' })).toEqual({ runsReviews: false });
  });

  it('refuses every other move with a 409 conflict', () => {
    const allowed = new Set(['pending>approved', 'pending>draft']);
    for (const from of states) {
      for (const to of states) {
        if (to === 'pending' || allowed.has(`${from}>${to}`)) continue;
        expect(() => assertReleaseTransition({ from, to }), `${from}>${to}`).toThrowError(
          expect.objectContaining({ code: 'conflict', status: 409 }),
        );
      }
    }
  });

  it('deploys approved and deployed releases only', () => {
    expect(states.filter(isDeployableState)).toEqual(['approved', 'deployed']);
  });
});
