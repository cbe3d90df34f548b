import { UsageError } from '../errors';

/** Milliseconds per duration unit. */
const UNIT_MS = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
} as const;

/** How a time may be written, for error messages and help. */
export const TIME_FORMS =
  'an ISO date-time with a zone (2026-05-01T09:00:00Z, 2026-05-01T11:00+02:00), now, or +10m, -2h, +1d2h';

/** How a duration may be written, for error messages and help. */
export const DURATION_FORMS = 'a duration such as 90s, 10m, 2h, 1d, 1h30m or 500ms';

const DURATION = /^(?:\d+(?:ms|s|m|h|d|w))+$/;
const PART = /(\d+)(ms|s|m|h|d|w)/g;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):?(\d{2}))$/i;

/**
 * A duration as milliseconds: one or more `<integer><unit>` parts, units `ms`, `s`, `m`, `h`,
 * `d` (24 h) and `w` (7 d), e.g. `10m`, `1h30m`, `500ms`. Throws a {@link UsageError} otherwise.
 */
export function parseDuration(text: string): number {
  const compact = text.trim().toLowerCase();
  if (!DURATION.test(compact)) throw new UsageError(`"${text}" is not ${DURATION_FORMS}`);
  let total = 0;
  for (const [, amount, unit] of compact.matchAll(PART)) {
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  if (!Number.isSafeInteger(total)) throw new UsageError(`"${text}" is too long a duration`);
  return total;
}

/**
 * A point in time as an ISO string in UTC (`toISOString`): `now`; `now` plus or minus a
 * duration (`+10m`, `-2h`, `+1d2h`); or an ISO 8601 date-time with seconds optional and a zone
 * (`Z` or `±hh:mm`) required, since a time without one would depend on the machine's zone.
 * Throws a {@link UsageError} for anything else, impossible dates (February 30) included.
 */
export function parseTime(text: string, now: Date): string {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'now') return now.toISOString();
  const sign = trimmed[0];
  if (sign === '+' || sign === '-') {
    const ms = parseDurationIn(trimmed.slice(1), text);
    return new Date(now.getTime() + (sign === '+' ? ms : -ms)).toISOString();
  }
  const match = ISO.exec(trimmed);
  if (!match) throw new UsageError(`"${text}" is not a time: give ${TIME_FORMS}`);
  const [
    ,
    year,
    month,
    day,
    hour,
    minute,
    second = '0',
    fraction = '',
    zone,
    zoneSign,
    zoneHours,
    zoneMinutes,
  ] = match;
  const local = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
    Math.floor(Number(`0${fraction || '.0'}`) * 1000),
  );
  const check = new Date(local);
  const isReal =
    check.getUTCFullYear() === Number(year) &&
    check.getUTCMonth() === Number(month) - 1 &&
    check.getUTCDate() === Number(day) &&
    check.getUTCHours() === Number(hour) &&
    check.getUTCMinutes() === Number(minute) &&
    check.getUTCSeconds() === Number(second);
  const offsetMinutes = zone?.toUpperCase() === 'Z' ? 0 : Number(zoneHours) * 60 + Number(zoneMinutes);
  if (!isReal || Number(zoneHours ?? 0) > 23 || Number(zoneMinutes ?? 0) > 59) {
    throw new UsageError(`"${text}" is not a real date-time`);
  }
  return new Date(local - (zoneSign === '-' ? -offsetMinutes : offsetMinutes) * 60_000).toISOString();
}

function parseDurationIn(duration: string, text: string): number {
  try {
    return parseDuration(duration);
  } catch {
    throw new UsageError(`"${text}" is not a time: give ${TIME_FORMS}`);
  }
}
