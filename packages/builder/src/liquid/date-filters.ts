import type { Liquid } from 'liquidjs';
import { filters as builtins } from 'liquidjs';
import { fastDate } from './date-format';

const NativeDateTimeFormat = Intl.DateTimeFormat;
const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * `Intl.DateTimeFormat`, callable like the original, that returns one shared formatter per
 * locale and options. Formatters are immutable, so sharing one gives the same strings.
 */
function sharedDateTimeFormat(
  locales?: string | string[],
  options?: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${JSON.stringify(locales ?? null)}\u0000${JSON.stringify(options ?? null)}`;
  let format = formats.get(key);
  if (!format) {
    format = new NativeDateTimeFormat(locales, options);
    formats.set(key, format);
  }
  return format;
}

/** How many formatters are shared (for tests). */
export function sharedDateTimeFormatCount(): number {
  return formats.size;
}

type Handler = (this: unknown, ...args: unknown[]) => unknown;

/**
 * liquidjs's date filter with shared `Intl` formatters. liquidjs builds a new
 * `Intl.DateTimeFormat` for every month or weekday name it prints (`%B`, `%b`, `%A`, `%a`),
 * which made `date` the most expensive filter of a build. While the filter runs (synchronously),
 * `Intl.DateTimeFormat` is a function that hands out one shared formatter per locale and options;
 * the original is restored before it returns or throws. Same output, same memory accounting.
 */
function withSharedFormats(builtin: Handler): Handler {
  return function (this: unknown, ...args: unknown[]): unknown {
    const intl = Intl as { DateTimeFormat: unknown };
    intl.DateTimeFormat = sharedDateTimeFormat;
    try {
      return builtin.apply(this, args);
    } finally {
      intl.DateTimeFormat = NativeDateTimeFormat;
    }
  };
}

const MEMO_LIMIT = 50_000;

interface FilterThis {
  context?: {
    opts?: { locale?: string; timezoneOffset?: unknown };
    memoryLimit?: { use(n: number): void };
  };
}

/** {@link fastDate} in an environment that prints dates in UTC, else undefined. */
function utcDate(self: unknown, value: string, format: string): string | undefined {
  const context = (self as FilterThis).context;
  const opts = context?.opts;
  if (opts?.timezoneOffset !== 0 || typeof opts.locale !== 'string') return undefined;
  return fastDate(value, format, {
    locale: opts.locale,
    dateTimeFormat: sharedDateTimeFormat,
    memoryLimit: context?.memoryLimit,
  });
}

/**
 * `date`: an ISO UTC date with a plain format printed by {@link fastDate} (the same bytes and
 * memory charges as liquidjs's; it costs about what a lookup of a remembered result costs, and
 * most dates are printed once), anything else by liquidjs's filter, remembering what it printed
 * for a fixed date string or timestamp and format (a site prints the same dates on many pages).
 * `now` and `today` are never remembered. The memory a remembered result takes still counts
 * against the render's memory limit.
 */
function memoizedDate(filter: Handler): Handler {
  const memo = new Map<string, unknown>();
  return function (this: unknown, value: unknown, format?: unknown, offset?: unknown): unknown {
    if (typeof value === 'string' && typeof format === 'string' && offset === undefined) {
      const fast = utcDate(this, value, format);
      if (fast !== undefined) return fast;
    }
    const fixed =
      (typeof value === 'string' && value !== 'now' && value !== 'today') || typeof value === 'number';
    const plain =
      (format === undefined || typeof format === 'string') &&
      (offset === undefined || typeof offset === 'string' || typeof offset === 'number');
    if (!fixed || !plain) return filter.call(this, value, format, offset);
    const key = `${typeof value}\u0000${value}\u0000${format ?? ''}\u0000${typeof format}\u0000${offset ?? ''}\u0000${typeof offset}`;
    if (memo.has(key)) {
      const result = memo.get(key);
      const limit = (this as { context?: { memoryLimit?: { use(n: number): void } } }).context?.memoryLimit;
      limit?.use(typeof result === 'string' ? result.length : 0);
      return result;
    }
    // (not one fastDate prints: tried above)
    const result = filter.call(this, value, format, offset);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(key, result);
    return result;
  };
}

/**
 * Replaces liquidjs's date filters (`date`, `date_to_string`, `date_to_long_string`,
 * `date_to_rfc822`) with ones that share `Intl` formatters; `date` also remembers its results
 * (per Liquid environment: the time zone and locale are the environment's).
 */
export function registerDateFilters(liquid: Liquid): void {
  for (const name of ['date', 'date_to_string', 'date_to_long_string', 'date_to_rfc822'] as const) {
    const filter = withSharedFormats(builtins[name] as Handler);
    liquid.registerFilter(name, name === 'date' ? memoizedDate(filter) : filter);
  }
}
