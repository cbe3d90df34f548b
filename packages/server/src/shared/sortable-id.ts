/**
 * A time-sortable id: `<prefix><UTC yyyymmddhhmmssmmm>-<random>`, so ids of one prefix sort by
 * the time they were made; `randomChars` (up to 36) hex-ish characters of a uuid tell apart
 * ids of the same millisecond.
 */
export function sortableId(prefix: string, now: Date, randomChars: number): string {
  const stamp = now
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 17);
  return `${prefix}${stamp}-${crypto.randomUUID().slice(0, randomChars)}`;
}
