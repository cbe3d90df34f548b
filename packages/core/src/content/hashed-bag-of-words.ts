import type { ContentType } from '../schemas/content-type';

const EMBEDDED_TYPES: ReadonlySet<string> = new Set(['string', 'text', 'markdown', 'richtext', 'enum']);

/** The dimension of the default offline embedding. */
export const HASHED_BOW_DIMENSIONS = 256;

/** Lowercase word tokens of `text` (letters and digits of any script, accents folded), 2+ characters. */
export function wordTokens(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  return (folded.match(/[\p{L}\p{N}]+/gu) ?? []).filter((token) => token.length >= 2);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A hashed bag-of-words embedding: each word is hashed (FNV-1a) to one of `dimensions` slots
 * with a hash-derived sign, counts are dampened (1 + ln tf), and the vector is L2-normalised.
 * Deterministic, offline and dependency-free; texts that share words point the same way, so
 * cosine similarity ranks lexical overlap. A text without words maps to the first unit vector.
 */
export function hashedBagOfWords(text: string, { dimensions = HASHED_BOW_DIMENSIONS } = {}): number[] {
  const counts = new Map<string, number>();
  for (const token of wordTokens(text)) counts.set(token, (counts.get(token) ?? 0) + 1);
  const vector = new Array<number>(dimensions).fill(0);
  for (const [token, count] of counts) {
    const hash = fnv1a(token);
    const slot = hash % dimensions;
    const sign = (hash >>> 31) & 1 ? -1 : 1;
    vector[slot] = (vector[slot] ?? 0) + sign * (1 + Math.log(count));
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((value) => value / norm);
}

/**
 * The text an item is embedded from: the values of its text-like fields (string, text,
 * markdown, string richtext, enum, stringlist) in the type's field order, one per line.
 */
export function embeddingText({
  type,
  fields,
}: {
  type: Pick<ContentType, 'fields'>;
  fields: Record<string, unknown>;
}): string {
  const parts: string[] = [];
  for (const field of type.fields) {
    const value = fields[field.name];
    if (typeof value === 'string' && EMBEDDED_TYPES.has(field.type)) {
      parts.push(value);
    } else if (Array.isArray(value) && field.type === 'stringlist') {
      parts.push(value.join(' '));
    }
  }
  return parts.join('\n');
}
