import { describe, expect, it } from 'vitest';
import { decideHeap, HEAP_BASE_MB, HEAP_PER_SNAPSHOT_BYTE } from './heap-size';

const MB = 1024 * 1024;
const GB = 1024 * MB;

describe('decideHeap', () => {
  const machine = { totalMemoryBytes: 24 * GB, currentLimitBytes: 4144 * MB };

  it("keeps node's limit for a snapshot it holds, and for a build from the API", () => {
    expect(decideHeap({ ...machine, snapshotBytes: 190 * 1e6 })).toEqual({ kind: 'keep' });
    expect(decideHeap({ ...machine, snapshotBytes: null })).toEqual({ kind: 'keep' });
  });

  it('raises it for a large snapshot, from the file size', () => {
    const snapshotBytes = 1.9e9;
    expect(decideHeap({ ...machine, snapshotBytes })).toEqual({
      kind: 'raise',
      mb: Math.ceil((snapshotBytes * HEAP_PER_SNAPSHOT_BYTE) / MB) + HEAP_BASE_MB,
      reason: 'sized from the snapshot file',
    });
  });

  it('refuses, with the sizes, a snapshot the machine cannot hold', () => {
    const decision = decideHeap({ ...machine, totalMemoryBytes: 8 * GB, snapshotBytes: 1.9e9 });
    expect(decision.kind).toBe('refuse');
    expect(decision.kind === 'refuse' && decision.message).toMatch(
      /snapshot \(1\.8 GB\) needs about 7\.6 GB of heap .* than the 4\.0 GB .* --max-heap/,
    );
  });

  it("takes --max-heap as it is, and node's own flag as the user's choice", () => {
    const big = { ...machine, totalMemoryBytes: 8 * GB, snapshotBytes: 1.9e9 };
    expect(decideHeap({ ...big, requestedMb: 6000 })).toEqual({
      kind: 'raise',
      mb: 6000,
      reason: '--max-heap',
    });
    expect(decideHeap({ ...big, requestedMb: 4200 })).toEqual({ kind: 'keep' });
    expect(decideHeap({ ...big, nodeFlagGiven: true })).toEqual({ kind: 'keep' });
  });
});
