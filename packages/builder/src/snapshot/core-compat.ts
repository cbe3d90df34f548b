import type { SiteSnapshot } from '@trelliscms/core';
import type { Snapshot } from './types';

/** The core schema's snapshot (what `GET /api/export` answers) is a builder snapshot. */
export function fromCoreSnapshot(snapshot: SiteSnapshot): Snapshot {
  return snapshot;
}
