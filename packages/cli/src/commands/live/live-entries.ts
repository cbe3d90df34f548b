import type { LiveEntry } from '@trelliscms/core';
import { table } from '../../io/output';

/** Live items as a table: which version of each is live, since when, and what put it there. */
export function liveEntryTable(entries: readonly LiveEntry[]): string[] {
  return table(
    entries.map((entry) => ({
      item: entry.itemId,
      version: entry.version,
      since: entry.since,
      cause: entry.cause,
      release: entry.releaseId ?? '',
      hash: entry.hash.slice(0, 19),
    })),
    ['item', 'version', 'since', 'cause', 'release', 'hash'],
  );
}
