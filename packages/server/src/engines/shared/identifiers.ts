import { EngineError } from '../port';

const GRAPH_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Whether `name` is a valid graph name (see {@link assertGraphName}). */
export function isGraphName(name: unknown): name is string {
  return typeof name === 'string' && GRAPH_NAME.test(name);
}

/**
 * Graph names become file names (embedded) and property values (Neo4j), so only letters,
 * digits, `-` and `_` are allowed, starting with a letter or digit, at most 128 characters.
 * A uuid qualifies. Throws EngineError `invalid_argument` otherwise.
 */
export function assertGraphName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !GRAPH_NAME.test(name)) {
    throw new EngineError('invalid_argument', `Invalid graph name ${JSON.stringify(name)}`, {
      hint: 'Use letters, digits, "-" and "_" (at most 128 characters).',
    });
  }
}

/**
 * Node labels, edge types and the property names used in filters, ordering and unique
 * constraints are identifiers (`[A-Za-z_][A-Za-z0-9_]*`, at most 128 characters). Throws
 * EngineError `invalid_argument` naming `what` otherwise.
 */
export function assertIdentifier(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
    throw new EngineError('invalid_argument', `Invalid ${what} ${JSON.stringify(value)}`, {
      hint: 'Use an identifier: letters, digits and "_", not starting with a digit.',
    });
  }
}

/** Node ids are non-empty strings of at most 512 characters. */
export function assertNodeId(value: unknown, what = 'node id'): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) {
    throw new EngineError('invalid_argument', `Invalid ${what} ${JSON.stringify(value)}`);
  }
}

/** A JSON object (not null, not an array). */
export function assertProps(value: unknown, what = 'props'): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EngineError('invalid_argument', `${what} must be a JSON object`);
  }
}

/** Validates a label list: at least one label, each an identifier, no duplicates. */
export function assertLabels(labels: unknown): asserts labels is string[] {
  if (!Array.isArray(labels) || labels.length === 0) {
    throw new EngineError('invalid_argument', 'A node needs at least one label');
  }
  for (const label of labels) assertIdentifier(label, 'label');
  if (labels.length > 1 && new Set(labels).size !== labels.length) {
    throw new EngineError('invalid_argument', 'A node cannot carry the same label twice');
  }
}

/** A non-negative integer (limit, offset, k), or undefined. */
export function assertCount(value: unknown, what: string, max = Number.MAX_SAFE_INTEGER): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new EngineError('invalid_argument', `${what} must be an integer from 0 to ${max}`);
  }
}

/** A node's search text: a string, or undefined. */
export function assertSearchText(value: unknown): asserts value is string | undefined {
  if (value !== undefined && typeof value !== 'string') {
    throw new EngineError('invalid_argument', 'searchText must be a string');
  }
}
