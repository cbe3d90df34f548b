/** An item write read from either body form. */
export interface ItemInput {
  /** An explicit id: a full id `<type>:<slug>` or a bare slug. */
  id?: string;
  fields: Record<string, unknown>;
  relationships: Record<string, unknown>;
  /** The version the writer expects the item to be at (optimistic concurrency). */
  expectedVersion?: number;
}

const EXPLICIT_KEYS = new Set(['fields', 'relationships', 'expectedVersion', 'version', 'id']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads an item write body. The explicit form is `{fields, relationships?, expectedVersion?,
 * version?, id?}` (`fields` an object and no other key); anything else is the free-form form,
 * whose keys are the fields except the reserved `id` (string), `relationships` (object) and
 * `version` (integer, the expected version). Reserved names can never be fields.
 */
export function readItemInput(body: Record<string, unknown>): ItemInput {
  const isExplicit = isObject(body.fields) && Object.keys(body).every((key) => EXPLICIT_KEYS.has(key));
  const expected = body.expectedVersion ?? body.version;
  const input: ItemInput = {
    fields: {},
    relationships: isObject(body.relationships) ? body.relationships : {},
  };
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
