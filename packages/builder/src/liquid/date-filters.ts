import type { Liquid } from 'liquidjs';
import { filters as builtins } from 'liquidjs';

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

/** Replaces liquidjs's date filters (`date`, `date_to_string`, `date_to_long_string`, `date_to_rfc822`) with ones that share `Intl` formatters. */
export function registerDateFilters(liquid: Liquid): void {
  for (const name of ['date', 'date_to_string', 'date_to_long_string', 'date_to_rfc822'] as const) {
    liquid.registerFilter(name, withSharedFormats(builtins[name] as Handler));
  }
}
