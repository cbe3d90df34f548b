/** What a routePattern placeholder can read: the item and, for `{parent.*}`, its parent item. */
export interface RoutableItem {
  /** `<type>:<slug>` */
  id: string;
  type: string;
  fields: Record<string, unknown>;
}

/** The slug of an item: its `slug` field when it is a non-empty string, else the part of its id after `<type>:`. */
export function itemSlug(item: RoutableItem): string {
  const field = item.fields.slug;
  if (typeof field === 'string' && field.length > 0) return field;
  const colon = item.id.indexOf(':');
  return colon === -1 ? item.id : item.id.slice(colon + 1);
}

/**
 * Normalizes a URL path to the form pages are emitted at: a leading and a trailing `/`, no
 * empty, `.` or `..` segments, no backslashes. `index.html` is appended by the emitter.
 */
export function normalizeRoute(path: string): string {
  const segments = path
    .replace(/\\/g, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
  return segments.length === 0 ? '/' : `/${segments.join('/')}/`;
}

/** Makes a placeholder value safe as one path segment (keeps `/` out, so a value cannot add segments). */
function segmentValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? '' : String(value);
  return encodeURIComponent(text.trim()).replace(/%20/g, '-');
}

/** The result of resolving a routePattern. `missing` names placeholders that had no value. */
export interface ResolvedRoute {
  path: string;
  missing: string[];
}

/**
 * Resolves an item's page path. `pattern` null or empty gives the fallback `/<type>/<slug>/`.
 * Placeholders: `{slug}`, `{<field>}`, `{parent.slug}`, `{parent.<field>}`; everything else is a
 * literal. A placeholder without a value (no parent, empty field) resolves to nothing and is
 * listed in `missing`; the caller reports it. The result is normalized ({@link normalizeRoute}).
 */
export function resolveRoute(params: {
  pattern: string | null | undefined;
  item: RoutableItem;
  parent?: RoutableItem | null;
}): ResolvedRoute {
  const { pattern, item, parent } = params;
  if (pattern === null || pattern === undefined || pattern.trim() === '') {
    return { path: normalizeRoute(`/${item.type}/${segmentValue(itemSlug(item))}/`), missing: [] };
  }
  const missing: string[] = [];
  const filled = pattern.replace(/\{\s*([A-Za-z_][\w.-]*)\s*\}/g, (_whole, name: string) => {
    let target: RoutableItem | null | undefined = item;
    let field = name;
    if (name.startsWith('parent.')) {
      target = parent;
      field = name.slice('parent.'.length);
    }
    const raw = target ? (field === 'slug' ? itemSlug(target) : target.fields[field]) : undefined;
    const value = segmentValue(raw);
    if (value === '') missing.push(name);
    return value;
  });
  return { path: normalizeRoute(filled), missing };
}

/** A relationship definition as far as parent resolution needs it. */
export interface ParentRelationship {
  name: string;
  edgeLabel: string;
  kind?: string;
}

/**
 * The relationship that names an item's parent for `{parent.*}`: the relationship named
 * `parent` or with edge label `PARENT`, else the first `many-to-one` relationship of the type.
 * Null when the type has neither.
 */
export function parentRelationship(
  relationships: readonly ParentRelationship[] | undefined,
): ParentRelationship | null {
  if (!relationships || relationships.length === 0) return null;
  return (
    relationships.find((rel) => rel.name === 'parent' || rel.edgeLabel === 'PARENT') ??
    relationships.find((rel) => rel.kind === 'many-to-one') ??
    null
  );
}
