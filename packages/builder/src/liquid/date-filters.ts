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

const MEMO_LIMIT = 50_000;

/** A conversion of a format the fast path prints: its code (`%Y` → `Y`). */
type Conversion = { code: string };

/** liquidjs's padding of the conversions below: width and character (`strftime`'s `padWidths`, `padSpaceChars`). */
const PADS: Record<string, [number, string]> = {
  Y: [4, '0'],
  y: [2, '0'],
  m: [2, '0'],
  d: [2, '0'],
  e: [2, ' '],
  H: [2, '0'],
  M: [2, '0'],
  S: [2, '0'],
  B: [0, ' '],
  b: [0, ' '],
  h: [0, ' '],
  '%': [0, '0'],
};

const compiledFormats = new Map<string, Array<string | Conversion> | null>();

/**
 * A format as literal texts and conversions, when it has only conversions of {@link PADS}
 * without flags, width or modifier (`%Y-%m-%d`, `%B %d, %Y`); null otherwise (liquidjs prints it).
 * As liquidjs reads it: `%` and the next character (any but a line break) form a conversion; a
 * `%` at the end or before a line break is text.
 */
function compileFormat(format: string): Array<string | Conversion> | null {
  let parts = compiledFormats.get(format);
  if (parts !== undefined) return parts;
  parts = [];
  let text = '';
  for (let i = 0; i < format.length; i++) {
    const char = format[i]!;
    const next = format[i + 1];
    if (char !== '%' || next === undefined || /[\n\r\u2028\u2029]/.test(next)) {
      text += char;
      continue;
    }
    if (!Object.hasOwn(PADS, next)) {
      parts = null;
      break;
    }
    if (text) parts.push(text);
    text = '';
    parts.push({ code: next });
    i++;
  }
  if (parts && text) parts.push(text);
  if (compiledFormats.size >= 1000) compiledFormats.clear();
  compiledFormats.set(format, parts);
  return parts;
}

/** Month names per locale as `Intl` prints them alone (`{ month: 'long' }`), when its calendar is the Gregorian one. */
const monthNames = new Map<string, { long: string[]; short: string[] } | null>();

function monthNamesOf(locale: string): { long: string[]; short: string[] } | null {
  let names = monthNames.get(locale);
  if (names !== undefined) return names;
  const long = sharedDateTimeFormat(locale, { month: 'long' });
  const short = sharedDateTimeFormat(locale, { month: 'short' });
  names =
    long.resolvedOptions().calendar === 'gregory' && short.resolvedOptions().calendar === 'gregory'
      ? {
          long: Array.from({ length: 12 }, (_, month) => long.format(new Date(2001, month, 15))),
          short: Array.from({ length: 12 }, (_, month) => short.format(new Date(2001, month, 15))),
        }
      : null;
  monthNames.set(locale, names);
  return names;
}

type FilterThis = {
  context?: {
    opts?: { locale?: unknown; timezoneOffset?: unknown; preserveTimezones?: unknown };
    memoryLimit?: { use(count: number): void };
  };
};

/**
 * liquidjs's `date` of a date text and a format of {@link compileFormat}, printed without its
 * `LiquidDate` and `strftime`: the same date (`new Date(text)` shown at the environment's fixed
 * offset, as `LiquidDate` shifts it), the same padding, month names from the same `Intl`
 * formatter (one table per locale), the same memory accounted. Undefined when the arguments are
 * anything else (a timestamp, `now`, a time zone name, another conversion, an invalid date): then
 * liquidjs prints it.
 */
function fastDate(self: FilterThis, value: string, format: string): string | undefined {
  const context = self.context;
  const opts = context?.opts;
  const limit = context?.memoryLimit;
  if (!opts || !limit || opts.preserveTimezones || typeof opts.timezoneOffset !== 'number') return undefined;
  if (typeof opts.locale !== 'string' || /^\d+$/.test(value)) return undefined;
  const parts = compileFormat(format);
  if (!parts) return undefined;
  const date = new Date(value);
  const shown = new Date(date.getTime() + (date.getTimezoneOffset() - opts.timezoneOffset) * 60_000);
  if (Number.isNaN(shown.getTime())) return undefined;
  let names: { long: string[]; short: string[] } | null = null;
  for (const part of parts)
    if (typeof part !== 'string' && (part.code === 'B' || part.code === 'b' || part.code === 'h')) {
      names = monthNamesOf(opts.locale);
      if (!names) return undefined;
      break;
    }
  limit.use(value.length);
  limit.use(format.length);
  let output = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      output += part;
      continue;
    }
    const { code } = part;
    let text: string;
    if (code === 'Y') text = String(shown.getFullYear());
    else if (code === 'y') text = String(((shown.getFullYear() % 100) + 100) % 100);
    else if (code === 'm') text = String(shown.getMonth() + 1);
    else if (code === 'd' || code === 'e') text = String(shown.getDate());
    else if (code === 'H') text = String(shown.getHours());
    else if (code === 'M') text = String(shown.getMinutes());
    else if (code === 'S') text = String(shown.getSeconds());
    else if (code === 'B') text = names!.long[shown.getMonth()]!;
    else if (code === 'b' || code === 'h') text = names!.short[shown.getMonth()]!;
    else text = '%';
    const [width, pad] = PADS[code]!;
    limit.use(width - text.length);
    if (pad === '0' && text[0] === '-') text = `-${text.slice(1).padStart(width - 1, pad)}`;
    else text = text.padStart(width, pad);
    output += text;
  }
  return output;
}

/**
 * `date` remembering what it printed for a fixed date string or timestamp and format (a site
 * prints the same dates on many pages). `now` and `today` are never remembered. The memory a
 * remembered result takes still counts against the render's memory limit.
 */
function memoizedDate(filter: Handler): Handler {
  const memo = new Map<string, unknown>();
  return function (this: unknown, value: unknown, format?: unknown, offset?: unknown): unknown {
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
    const result =
      (typeof value === 'string' && typeof format === 'string' && offset === undefined
        ? fastDate(this as FilterThis, value, format)
        : undefined) ?? filter.call(this, value, format, offset);
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
