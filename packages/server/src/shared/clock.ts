/**
 * Where the server reads the time of day: every timestamp it stores or compares (createdAt,
 * build and deployment ids, key expiry, due deployments) comes from the app's clock
 * (`BuildAppOptions.clock`, default {@link systemClock}), so tests can fix it.
 */
export interface Clock {
  now(): Date;
}

/** The real time (through `Date.now`, so tests that stub it move this clock too). */
export const systemClock: Clock = { now: () => new Date(Date.now()) };

/** A clock stopped at `at` (tests). */
export function fixedClock(at: Date | string): Clock {
  const time = new Date(at).getTime();
  return { now: () => new Date(time) };
}
