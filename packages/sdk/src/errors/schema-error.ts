/** One problem found when checking a response against its schema. */
export interface SchemaIssue {
  /** Where in the body, e.g. `items.3.id`; empty for the root. */
  path: string;
  message: string;
}

export interface SchemaErrorInit {
  method: string;
  url: string;
  status: number;
  issues: SchemaIssue[];
  body: unknown;
}

/**
 * A 2xx answer whose body does not match the schema the SDK expects for that endpoint —
 * the server and the SDK disagree about the contract (usually a version mismatch).
 */
export class SchemaError extends Error {
  override readonly name = 'SchemaError';
  readonly method: string;
  readonly url: string;
  readonly status: number;
  /** What did not match, at most the first 20 problems. */
  readonly issues: SchemaIssue[];
  /** The body as received. */
  readonly body: unknown;

  constructor(init: SchemaErrorInit) {
    const first = init.issues
      .slice(0, 3)
      .map((issue) => `${issue.path || '(root)'}: ${issue.message}`)
      .join('; ');
    super(`The response of ${init.method} ${init.url} does not match the expected schema: ${first}`);
    this.method = init.method;
    this.url = init.url;
    this.status = init.status;
    this.issues = init.issues.slice(0, 20);
    this.body = init.body;
  }
}

/** True for a {@link SchemaError}, also one from another copy of the SDK (matched by name). */
export function isSchemaError(value: unknown): value is SchemaError {
  return (
    value instanceof SchemaError ||
    (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'SchemaError')
  );
}
