/** How big a JSON body may be in shape, checked before it is parsed (see {@link findJsonShapeProblem}). */
export interface JsonShapeLimits {
  /** Nesting of objects and arrays. */
  maxDepth: number;
  /** Keys of one object. */
  maxKeys: number;
  /** Items of one array. */
  maxArrayItems: number;
  /** UTF-16 code units of one string (a key or a value), escapes counted as the character they stand for. */
  maxStringLength: number;
}

/** Which limit a body breaks, and the limit. */
export interface JsonShapeProblem {
  limit: 'depth' | 'keys' | 'array' | 'string';
  max: number;
}

const QUOTE = 0x22;
const LOWER_U = 0x75;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * Scans JSON text once, without building anything, and tells the first limit it breaks, or
 * null. It stops at the first key, item, level or character over a limit, so a million-key
 * object is refused after reading its first `maxKeys` keys, before `JSON.parse` (which would
 * block the event loop for seconds building it) sees it. It does not validate the syntax:
 * text that is not JSON gets whatever answer (and then `JSON.parse` says it is not JSON).
 */
export function findJsonShapeProblem(text: string, limits: JsonShapeLimits): JsonShapeProblem | null {
  const size = limits.maxDepth + 2;
  // Per open level: 1 for an object, 0 for an array, and its keys (colons) or separators (commas).
  const isObject = new Uint8Array(size);
  const counts = new Uint32Array(size);
  let depth = 0;
  const length = text.length;
  // The next backslash at or after where a string is being read; `length` once there is none.
  let nextBackslash = -1;
  // The next quote at or after where a string is being read; -1 once there is none.
  let nextQuote = -1;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      let decoded = 0;
      let at = index + 1;
      for (;;) {
        // Both searches are remembered, so a string full of escapes is still read once.
        if (nextQuote < at) nextQuote = text.indexOf('"', at);
        if (nextQuote === -1) return null;
        if (nextBackslash < at) {
          const found = text.indexOf('\\', at);
          nextBackslash = found === -1 ? length : found;
        }
        if (nextBackslash < nextQuote) {
          decoded += nextBackslash - at + 1;
          at = nextBackslash + (text.charCodeAt(nextBackslash + 1) === LOWER_U ? 6 : 2);
          if (decoded > limits.maxStringLength) return { limit: 'string', max: limits.maxStringLength };
        } else {
          decoded += nextQuote - at;
          at = nextQuote;
          break;
        }
      }
      if (decoded > limits.maxStringLength) return { limit: 'string', max: limits.maxStringLength };
      index = at;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth += 1;
      if (depth > limits.maxDepth) return { limit: 'depth', max: limits.maxDepth };
      isObject[depth] = code === OPEN_OBJECT ? 1 : 0;
      counts[depth] = 0;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth > 0) depth -= 1;
    } else if (depth > 0) {
      if (code === COLON && isObject[depth] === 1) {
        counts[depth] = (counts[depth] ?? 0) + 1;
        if ((counts[depth] ?? 0) > limits.maxKeys) return { limit: 'keys', max: limits.maxKeys };
      } else if (code === COMMA && isObject[depth] === 0) {
        // n commas separate n + 1 items.
        counts[depth] = (counts[depth] ?? 0) + 1;
        if ((counts[depth] ?? 0) >= limits.maxArrayItems) {
          return { limit: 'array', max: limits.maxArrayItems };
        }
      }
    }
  }
  return null;
}

/** Says a {@link JsonShapeProblem} in words, for the error body. */
export function describeJsonShapeProblem(problem: JsonShapeProblem): string {
  switch (problem.limit) {
    case 'depth':
      return `it nests objects and arrays deeper than ${problem.max} levels`;
    case 'keys':
      return `an object has more than ${problem.max} keys`;
    case 'array':
      return `an array has more than ${problem.max} items`;
    case 'string':
      return `a string is longer than ${problem.max} characters`;
  }
}
