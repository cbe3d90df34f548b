import type { ContentType } from '../schemas/content-type';

/**
 * A URL-safe slug of `text`: accents folded, lowercase, runs of anything but `a-z0-9`
 * turned into one dash, no leading or trailing dash, at most 120 characters. Empty when
 * `text` has no letter or digit.
 */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/, '');
}

const SLUG = /^[a-z0-9][a-z0-9-]*$/;

/** Whether `value` is already a slug (lowercase letters, digits and dashes). */
export function isSlug(value: string): boolean {
  return value.length <= 120 && SLUG.test(value);
}

/** The full id of an item: `<type>:<slug>`. */
export function contentId({ type, slug }: { type: string; slug: string }): string {
  return `${type}:${slug}`;
}

/** Splits a full id `<type>:<slug>` at its first colon, or null when it has none. */
export function parseContentId(id: string): { type: string; slug: string } | null {
  const at = id.indexOf(':');
  if (at <= 0 || at === id.length - 1) return null;
  return { type: id.slice(0, at), slug: id.slice(at + 1) };
}

/**
 * The slug of a new item: from an explicit `id` (a full id of this type, or a bare slug) when
 * given, else from the value of the type's `keyField`; either is slugified unless it already is
 * a slug. Null when neither gives a non-empty slug.
 */
export function deriveSlug({
  type,
  id,
  fields,
}: {
  type: Pick<ContentType, 'name' | 'keyField'>;
  id?: unknown;
  fields: Record<string, unknown>;
}): string | null {
  if (typeof id === 'string' && id !== '') {
    const parsed = parseContentId(id);
    const bare = parsed && parsed.type === type.name ? parsed.slug : id;
    const slug = isSlug(bare) ? bare : slugify(bare);
    return slug === '' ? null : slug;
  }
  const key = fields[type.keyField];
  if (typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key))) {
    const text = String(key);
    const slug = isSlug(text) ? text : slugify(text);
    return slug === '' ? null : slug;
  }
  return null;
}
