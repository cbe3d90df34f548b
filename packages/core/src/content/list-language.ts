import { TrellisError } from '../errors/trellis-error';

/**
 * The list language of content lists: the `where` and `sort` of the builder's `{% list %}` tag
 * and of paginated routes, and the `where` and `sort` query parameters of
 * `GET /api/content/{type}`. One parser and one evaluator, so a template and an API call with
 * the same text select the same items:
 *
 * - `where`: conditions joined with `and` — `<field> <op> <value>`, op one of
 *   `== != > >= < <= contains`, value `'text'`, `"text"`, a number, `true`, `false`, `null`
 *   (or `nil`), or one word without spaces (read as text). A bare `<field>` means "is set"
 *   (`<field> != null`). Example: `featured == true and category == 'news'`.
 * - Parameters (only where the caller allows them, as saved queries do): an unquoted value
 *   `$name` is the parameter `name`, a {@link ParamRef} bound to a typed value by
 *   {@link bindParams} after parsing, so a value never becomes query text.
 * - `sort`: keys separated by commas, `-` before a key for descending: `-date,title`. Ties
 *   break on the id.
 *
 * A field is one of the item's fields or a built-in: `id`, `slug`, `type`, `status`,
 * `createdAt`, `updatedAt` (see {@link LIST_BUILT_INS}).
 *
 * Semantics (both the in-memory evaluator here and the engines' filters keep them):
 * - A missing value is absent or `null`. `== null` matches missing values, `!= x` matches them.
 * - `==`/`!=`: equal values; a number equals its decimal text (`year == '2020'`). An unquoted
 *   number not in its plain form (`0451524934`, `1.50`) is read as text.
 * - `>`, `>=`, `<`, `<=`: numbers numerically, text by code point; a missing value never matches.
 * - `contains`: a case-insensitive substring of a text value, or an entry of a list value.
 * - Sorting puts missing values last ascending and first descending. Two date-time texts
 *   (before other texts; ISO 8601: `2024-05-01`, `2024-05-01T10:00:00+02:00`, `...Z`) sort by the instant they
 *   name, so values stored with different time zones sort correctly (a text without a zone is
 *   read as UTC); equal instants tie on the id. Conditions still compare texts as written.
 *
 * Parameters: `parseWhere(text, {values})` reads a value written `$name` as the bound value
 * `values[name]` (text, number, boolean or null), never as text spliced into the condition, so a
 * value holding quotes or ` and ` needs no escaping: `tags contains $tag` with `{tag: "rock'n'roll"}`.
 * Without `values` (or `params`), `$name` is one word of text (as before).
 */

/** The operators of a condition. */
export type WhereOp = '==' | '!=' | '>' | '>=' | '<' | '<=' | 'contains';

/** One condition of a `where`: `<field> <op> <value>`. */
export interface WhereCondition {
  field: string;
  op: WhereOp;
  value: unknown;
}

/** One sort key: a field, ascending unless `descending`. */
export interface SortKey {
  field: string;
  descending: boolean;
}

/** The names every item answers to besides its fields (a field of the same name wins for `slug`). */
export const LIST_BUILT_INS: readonly string[] = ['id', 'slug', 'type', 'status', 'createdAt', 'updatedAt'];

/** The longest `where` or `sort` text the language takes. */
export const MAX_LIST_QUERY_LENGTH = 2000;

/** A parameter standing for a value in a parsed `where` (`$name` in the text). */
export interface ParamRef {
  $param: string;
}

/** Whether a condition's value is a {@link ParamRef}. */
export function isParamRef(value: unknown): value is ParamRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { $param?: unknown }).$param === 'string'
  );
}

/** Options of {@link parseWhere}. */
export interface ParseWhereOptions {
  /**
   * Read an unquoted `$name` as the parameter reference `name` ({@link ParamRef}, bound later
   * with {@link bindParams}: saved queries); default: as the text `$name`.
   */
  params?: boolean;
  /**
   * Values for `$name` parameters, bound as the conditions are read (`{% list %}`'s `where: "tags
   * contains $tag", tag: t`): an unbound name is `invalid_list_query`. Wins over `params`.
   */
  values?: WhereParams;
}

const PARAM = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;

const FIELD = /^[A-Za-z_][\w.-]*$/;
const CONDITION = /^([A-Za-z_][\w.-]*)(?:\s*(==|!=|>=|<=|>|<)|\s+(contains)(?=[\s'"]))\s*(.*)$/s;

function invalid(detail: string): TrellisError {
  return TrellisError.of('invalid_list_query', { detail });
}

/** Splits `text` at ` and ` (any whitespace around it) outside quoted strings. */
function splitConditions(text: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote !== null) {
      if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      continue;
    }
    if (/\s/.test(char)) {
      const match = /^\s+and(?:\s+|$)/.exec(text.slice(i));
      if (match) {
        parts.push(text.slice(start, i));
        i += match[0].length - 1;
        start = i + 1;
      }
    }
  }
  if (quote !== null) throw invalid(`\`where\` has an unclosed ${quote} quote`);
  parts.push(text.slice(start));
  return parts;
}

/** Values bound to the `$name` parameters of a `where`. */
export type WhereParams = Readonly<Record<string, unknown>>;

const PARAMETER = /^\$([A-Za-z_]\w*)$/;

/** The value bound to a `$name` parameter: text, a number, a boolean or null (an item counts as its id). */
function boundValue(name: string, params: WhereParams, condition: string): unknown {
  if (!Object.hasOwn(params, name)) {
    throw invalid(`\`${condition}\` uses the parameter $${name}, which is not bound: pass ${name}: <value>`);
  }
  const value = params[name];
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (value === undefined) return null;
  if (typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string') {
    return (value as { id: string }).id;
  }
  throw invalid(`the parameter $${name} of \`${condition}\` is not text, a number, a boolean or null`);
}

function parseValue(text: string, condition: string, options: ParseWhereOptions): unknown {
  if (options.values) {
    const parameter = PARAMETER.exec(text);
    if (parameter) return boundValue(parameter[1]!, options.values, condition);
  }
  if (options.params) {
    const param = PARAM.exec(text);
    if (param) return { $param: param[1]! } satisfies ParamRef;
  }
  if (text === '') throw invalid(`\`${condition}\` has no value after its operator`);
  if (/^'[^']*'$/s.test(text) || /^"[^"]*"$/s.test(text)) return text.slice(1, -1);
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null' || text === 'nil') return null;
  // A number only in its plain form: `0451524934` or `1.50` stay text, so a text field (an
  // ISBN) compares as written; a number field reads the text as its number.
  if (/^-?\d+(\.\d+)?$/.test(text) && String(Number(text)) === text) return Number(text);
  if (/^[^\s'"]+$/.test(text)) return text;
  throw invalid(`the value of \`${condition}\` is not one value: quote text that holds spaces or quotes`);
}

/**
 * Parses a `where` text into conditions. Throws 400 `invalid_list_query` naming the part
 * that does not parse; an empty text has no conditions. See {@link ParseWhereOptions} for `$name`
 * parameters (bound now with `values`, or kept as references with `params`).
 */
export function parseWhere(text: string, options: ParseWhereOptions = {}): WhereCondition[] {
  if (text.length > MAX_LIST_QUERY_LENGTH) {
    throw invalid(`\`where\` is longer than ${MAX_LIST_QUERY_LENGTH} characters`);
  }
  if (text.trim() === '') return [];
  const conditions: WhereCondition[] = [];
  for (const part of splitConditions(text)) {
    const trimmed = part.trim();
    if (trimmed === '') throw invalid('`where` has an empty condition around `and`');
    const match = CONDITION.exec(trimmed);
    if (match) {
      conditions.push({
        field: match[1]!,
        op: (match[2] ?? match[3]) as WhereOp,
        value: parseValue(match[4]!.trim(), trimmed, options),
      });
    } else if (FIELD.test(trimmed)) {
      conditions.push({ field: trimmed, op: '!=', value: null });
    } else {
      throw invalid(
        `\`${trimmed}\` is not a condition: write <field> <op> <value> with op one of == != > >= < <= contains`,
      );
    }
  }
  return conditions;
}

/** The names of the parameters a parsed `where` uses, in order of first use. */
export function paramNames(conditions: readonly WhereCondition[]): string[] {
  const names: string[] = [];
  for (const condition of conditions) {
    if (isParamRef(condition.value) && !names.includes(condition.value.$param)) {
      names.push(condition.value.$param);
    }
  }
  return names;
}

/**
 * Puts parameter values in the place of the {@link ParamRef}s of parsed conditions. A condition
 * whose parameter has no value (`undefined` in `values`: an optional parameter left out) is left
 * out, so an optional parameter makes an optional filter.
 */
export function bindParams(
  conditions: readonly WhereCondition[],
  values: Readonly<Record<string, unknown>>,
): WhereCondition[] {
  const bound: WhereCondition[] = [];
  for (const condition of conditions) {
    if (!isParamRef(condition.value)) bound.push(condition);
    else {
      const value = Object.hasOwn(values, condition.value.$param)
        ? values[condition.value.$param]
        : undefined;
      if (value !== undefined) bound.push({ ...condition, value });
    }
  }
  return bound;
}

/**
 * Parses a `sort` text (`-date,title`) into its keys, each kept as written (`-` for
 * descending). Throws 400 `invalid_list_query` for a key that is not a field name.
 */
export function parseSort(text: string | undefined | null): string[] {
  if (!text) return [];
  if (text.length > MAX_LIST_QUERY_LENGTH) {
    throw invalid(`\`sort\` is longer than ${MAX_LIST_QUERY_LENGTH} characters`);
  }
  const keys = text
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  for (const key of keys) {
    if (!FIELD.test(key.startsWith('-') ? key.slice(1) : key)) {
      throw invalid(`\`${key}\` is not a sort key: write a field name, with - before it for descending`);
    }
  }
  return keys;
}

/** The keys of a parsed sort: `-date` is date descending. */
export function sortKeys(sort: readonly string[]): SortKey[] {
  return sort.map((raw) => {
    const descending = raw.startsWith('-');
    return { field: descending ? raw.slice(1) : raw, descending };
  });
}

function isMissing(value: unknown): boolean {
  return value === null || value === undefined;
}

const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * The instant (ms since the epoch) an ISO 8601 date or date-time text names, or null for any
 * other text. A date alone is midnight UTC; a time without a zone is UTC.
 */
export function instantOf(text: string): number | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [, day, time, zone] = match;
  let iso = `${day}T${time ?? '00:00'}`;
  if (!zone || zone.toUpperCase() === 'Z') iso += 'Z';
  else iso += zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The order of two values in a sort: missing values last, numbers numerically, booleans
 * false first, two date-time texts by their instant, anything else as text. `instant` is
 * {@link instantOf} or a memo of it (a sort reads each value's instant many times).
 */
export function compareValues(
  a: unknown,
  b: unknown,
  instant: (text: string) => number | null = instantOf,
): number {
  const aMissing = isMissing(a);
  const bMissing = isMissing(b);
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string' && a !== b) {
    // date-times by instant, and before other texts (so the order stays a total order)
    const x = instant(a);
    const y = instant(b);
    if (x !== null && y !== null) return x - y;
    if (x !== null || y !== null) return x !== null ? -1 : 1;
  }
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A number and the text of the same number (`2020` and `'2020'`, `1.5` and `'1.50'`). */
function sameNumber(number: number, text: string): boolean {
  return text.trim() !== '' && Number(text) === number;
}

function looseEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isMissing(a) && isMissing(b)) return true;
  if (typeof a === 'number' && typeof b === 'string') return sameNumber(a, b);
  if (typeof a === 'string' && typeof b === 'number') return sameNumber(b, a);
  return false;
}

/** Orders two present values of the same kind (numbers, or text); null when they cannot be ordered. */
function order(actual: unknown, expected: unknown): number | null {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  if (typeof actual === 'string' && typeof expected === 'string') {
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  }
  if (typeof actual === 'number' && typeof expected === 'string' && expected.trim() !== '') {
    const number = Number(expected);
    return Number.isFinite(number) ? actual - number : null;
  }
  return null;
}

/** Whether a value (the item's value of `condition.field`) satisfies a condition. */
export function conditionHolds(actual: unknown, condition: Pick<WhereCondition, 'op' | 'value'>): boolean {
  const expected = condition.value;
  switch (condition.op) {
    case '==':
      return looseEqual(actual, expected);
    case '!=':
      return !looseEqual(actual, expected);
    case 'contains':
      if (Array.isArray(actual)) return actual.some((entry) => looseEqual(entry, expected));
      return (
        typeof actual === 'string' &&
        !isMissing(expected) &&
        actual.toLowerCase().includes(String(expected).toLowerCase())
      );
    default: {
      if (isMissing(actual) || isMissing(expected)) return false;
      const difference = order(actual, expected);
      if (difference === null) return false;
      if (condition.op === '>') return difference > 0;
      if (condition.op === '>=') return difference >= 0;
      if (condition.op === '<') return difference < 0;
      return difference <= 0;
    }
  }
}
