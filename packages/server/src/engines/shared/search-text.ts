/**
 * The words of a full-text query, lowercased: maximal runs of letters and digits. A node
 * matches `q` when it contains every word (see NodeQuery.q); both engines tokenize `q` with
 * this function so they agree on what "all words" means.
 */
export function searchWords(q: string): string[] {
  return q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The text a node is indexed under: every string inside its props (nested objects and arrays
 * included), one per line. Keys are not indexed.
 */
export function searchableText(props: Record<string, unknown>): string {
  const parts: string[] = [];
  collect(props, parts);
  return parts.join('\n');
}

function collect(value: unknown, parts: string[]): void {
  if (typeof value === 'string') {
    parts.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, parts);
  } else if (typeof value === 'object' && value !== null) {
    for (const key in value) collect((value as Record<string, unknown>)[key], parts);
  }
}
