/**
 * Canonical JSON: object keys sorted by code point at every depth, no whitespace, `undefined`
 * members dropped (as JSON.stringify does), numbers as JSON.stringify writes them. Two values
 * that are equal as JSON give the same string whatever their key order.
 *
 * Throws on values JSON cannot represent faithfully (non-finite numbers, bigint, functions,
 * symbols, cycles), so a hash never silently covers a different value than the caller holds.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: cannot encode ${value}`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: cannot encode a ${typeof value}`);
  }
  const obj = value as object;
  if (seen.has(obj)) throw new TypeError('canonicalJson: cannot encode a cycle');
  seen.add(obj);
  try {
    if (Array.isArray(obj)) {
      return `[${obj.map((item) => (item === undefined ? 'null' : write(item, seen))).join(',')}]`;
    }
    if (obj instanceof Date) return JSON.stringify(obj.toISOString());
    const record = obj as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((key) => `${JSON.stringify(key)}:${write(record[key], seen)}`).join(',')}}`;
  } finally {
    seen.delete(obj);
  }
}
