/**
 * A time-sortable id: `<prefix><UTC yyyymmddhhmmssmmm>-<random>`, so ids of one prefix sort by
 * the time they were made; `random` (the caller's random characters: core does no I/O) tells
 * apart ids of the same millisecond. Build ids (`b…`) and deployment ids (`deploy:…`) use it.
 */
export function sortableId(prefix: string, now: Date, random: string): string {
  const stamp = now
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 17);
  return `${prefix}${stamp}-${random}`;
}
