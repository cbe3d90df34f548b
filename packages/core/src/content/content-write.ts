/** A content write (POST or PATCH /api/content/{type}[/{id}]) read from either body form. */
export interface ContentWriteInput {
  /** An explicit id: a full id `<type>:<slug>` or a bare slug. */
  id?: string;
  fields: Record<string, unknown>;
  /** Present when the body gave relationships. */
  relationships?: Record<string, unknown>;
  /** The version the writer expects the item to be at (optimistic concurrency). */
  expectedVersion?: number;
}

const EXPLICIT_KEYS = new Set(['fields', 'relationships', 'expectedVersion', 'version', 'id']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a content write body in either form (spec §4, content items). The explicit form is
 * `{fields, relationships?, expectedVersion?, version?, id?}` (`fields` an object and no other
 * key); anything else is the free-form form, whose keys are the fields except the reserved
 * `id` (a string), `relationships` (an object) and `version`/`expectedVersion` (numbers; an
 * integer one is the expected version). Reserved names can never be fields, so a free-form
 * body may carry an id, relationships and an expected version too.
 */
export function toContentWrite(body: Record<string, unknown>): ContentWriteInput {
  const isExplicit = isObject(body.fields) && Object.keys(body).every((key) => EXPLICIT_KEYS.has(key));
  const expected = body.expectedVersion ?? body.version;
  const input: ContentWriteInput = { fields: {} };
  if (isObject(body.relationships)) input.relationships = body.relationships;
  if (typeof body.id === 'string') input.id = body.id;
  if (typeof expected === 'number' && Number.isInteger(expected)) input.expectedVersion = expected;
  if (isExplicit) {
    input.fields = body.fields as Record<string, unknown>;
    return input;
  }
  for (const key in body) {
    if (key === 'id' && typeof body.id === 'string') continue;
    if (key === 'relationships' && isObject(body.relationships)) continue;
    if ((key === 'version' || key === 'expectedVersion') && typeof body[key] === 'number') continue;
    input.fields[key] = body[key];
  }
  return input;
}
