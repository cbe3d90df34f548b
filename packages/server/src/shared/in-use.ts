import { type Holder, TrellisError } from '@trelliscms/core';

/**
 * Deletes with integrity: each delete first finds what holds the resource (holders), then
 * {@link assertDeletable} refuses with 409 `in_use` naming them — unless the caller asked to
 * cascade and every holder is one the cascade takes care of (`cascades: true`).
 */

/** How many holders a 409 lists (`holderCount` gives them all). */
export const MAX_LISTED_HOLDERS = 100;

/** How many ids of one kind the error text names. */
const NAMED_PER_KIND = 5;

/** "3 items (post:a, post:b, post:c)", "route `home`", "2 templates (`a`, `b`)". */
export function describeHolders(holders: readonly Holder[]): string {
  const byKind = new Map<string, string[]>();
  for (const holder of holders) {
    const ids = byKind.get(holder.kind) ?? [];
    if (!ids.includes(holder.id)) ids.push(holder.id);
    byKind.set(holder.kind, ids);
  }
  const parts: string[] = [];
  for (const [kind, ids] of byKind) {
    const named = ids.slice(0, NAMED_PER_KIND).map((id) => (id.includes(':') ? id : `\`${id}\``));
    const more = ids.length > NAMED_PER_KIND ? `, and ${ids.length - NAMED_PER_KIND} more` : '';
    parts.push(
      ids.length === 1 ? `${kind} ${named[0]}` : `${ids.length} ${kind}s (${named.join(', ')}${more})`,
    );
  }
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * Refuses a delete that would break its holders: 409 `in_use` naming them (`holders`, at most
 * {@link MAX_LISTED_HOLDERS}, and `holderCount`). Without `cascade` every holder blocks; with
 * it only those the cascade does not take care of. `cascadeDoes` says what `?cascade=1` would
 * do, for the hint (omit it where the resource has no cascade).
 */
export function assertDeletable({
  resource,
  holders,
  cascade,
  cascadeDoes,
}: {
  /** The resource as the message names it, e.g. "Content type `post`". */
  resource: string;
  holders: readonly Holder[];
  cascade: boolean;
  cascadeDoes?: string;
}): void {
  const blocking = cascade ? holders.filter((holder) => !holder.cascades) : holders;
  if (blocking.length === 0) return;
  const canCascade = cascadeDoes !== undefined && blocking.every((holder) => holder.cascades);
  const hint = canCascade
    ? `Send the DELETE again with ?cascade=1 to ${cascadeDoes}, or change them first.`
    : 'Change or delete them first (each holder names what uses it), then delete again.';
  throw TrellisError.of(
    'in_use',
    { resource, holders: describeHolders(blocking) },
    {
      hint,
      extra: { holders: blocking.slice(0, MAX_LISTED_HOLDERS), holderCount: blocking.length },
    },
  );
}
