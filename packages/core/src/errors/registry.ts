/**
 * The one registry of error codes (docs/api-spec.md §7). Every code the service can answer with is
 * listed here with its HTTP status and a message template. Codes are never reused: retire a
 * code by leaving it here, not by giving its name a new meaning.
 *
 * Message templates name what happened, why, and what to do; `{name}` placeholders are
 * filled from the `params` given to {@link TrellisError.of}.
 */
export const errorRegistry = {
  // 400: bad input
  validation_failed: { status: 400, message: 'The request is not valid: {detail}' },
  malformed_json: { status: 400, message: 'The request body is not valid JSON: {detail}' },
  json_too_complex: {
    status: 400,
    message:
      'The JSON body is refused before parsing: {detail}. Send a smaller or flatter body (docs/errors.md lists the limits).',
  },
  malformed_multipart: {
    status: 400,
    message:
      'The multipart body could not be read ({detail}); send multipart/form-data with its boundary, complete, with the file in the field `file`.',
  },
  missing_body: { status: 400, message: 'This request needs a JSON body.' },
  missing_parameter: { status: 400, message: 'The query parameter `{name}` is required.' },
  business_rule: { status: 400, message: '{detail}' },
  workflow_comment_required: {
    status: 400,
    message:
      'The transition `{transition}` of workflow `{workflow}` needs a comment: send `comment` (cms workflows transition … -m "why").',
  },
  invalid_template: { status: 400, message: 'The template does not parse: {detail}' },
  invalid_snapshot: { status: 400, message: 'The site snapshot is not valid: {detail}' },
  invalid_list_query: {
    status: 400,
    message:
      'The list query is not valid: {detail}. `where` is <field> <op> <value> conditions joined by `and` (op one of == != > >= < <= contains); `sort` is field names separated by commas, `-` before one for descending.',
  },
  invalid_query: {
    status: 400,
    message: 'The saved query is not valid: {detail}. See docs/queries.md for the query language.',
  },
  invalid_query_params: {
    status: 400,
    message: 'The parameters of saved query `{name}` are not valid: {detail}.',
  },
  invalid_deploy_options: {
    status: 400,
    message: 'The deploy target `{target}` cannot use these options: {detail}',
  },
  unknown_environment: {
    status: 400,
    message:
      'The site has no environment `{env}`; its environments are {known}. Environments are never created on first use: an admin creates one with PUT /api/releases/environments/env:<name> (GET /api/releases/environments lists them).',
  },
  media_type_not_allowed: {
    status: 400,
    message: 'The uploaded file is not an accepted media type ({detail}); upload an image, a video or a PDF.',
  },
  build_version_not_found: {
    status: 404,
    message:
      'Build `{buildId}` has no deployed version to roll back to. List versions with GET /api/build/history.',
  },
  // 401 / 403
  unauthenticated: {
    status: 401,
    message: 'A valid credential is required: send `Authorization: Bearer <api key or ID token>`.',
  },
  invalid_credential: { status: 401, message: 'The credential is not valid: {detail}' },
  forbidden: { status: 403, message: 'You do not have access to this {resource}.' },
  workflow_transition_forbidden: {
    status: 403,
    message:
      'Your role `{role}` may not move {item} from `{state}` to {target} in workflow `{workflow}`; that move is open to: {roles}.',
  },
  site_required: {
    status: 400,
    message: 'This endpoint is site-scoped: send the header `X-Site-Id: site:<slug>`.',
  },
  lead_origin_not_allowed: {
    status: 403,
    message:
      'The lead was posted from {origin}, which is not an origin of site `{site}` (its public URL, its environments’ public URLs or this server). Post from the site’s own pages, or set the site’s publicUrl.',
  },
  // 404
  lead_site_unknown: {
    status: 404,
    message:
      'The lead names no known site: send the site’s slug in the form field `site`, or post from one of the site’s origins (its public URL).',
  },
  not_found: { status: 404, message: '{resource} not found.' },
  route_not_found: { status: 404, message: 'No route {method} {url}. See GET /api/openapi.json.' },
  graph_not_found: { status: 404, message: 'Graph `{graph}` not found, or you have no access to it.' },
  // 405
  method_not_allowed: {
    status: 405,
    message: '{method} is not offered on {url}: {detail}',
  },
  // 409
  conflict: { status: 409, message: '{detail}' },
  unique_violation: {
    status: 409,
    message: 'The value of `{field}` must be unique: another {label} already has it.',
  },
  version_conflict: {
    status: 409,
    message:
      'The {resource} changed since you read it (expected {expected}, current {current}). Read it again and retry.',
  },
  type_change_conflict: {
    status: 409,
    message: 'The type change would make {count} stored item(s) invalid at `{field}`: {detail}.',
  },
  review_gate: { status: 409, message: 'The release cannot be deployed: {detail}' },
  webhook_delivery_pending: {
    status: 409,
    message:
      'Delivery `{id}` is still being tried; redeliver it once it has succeeded or failed (GET its deliveries to follow it).',
  },
  webhook_disabled: {
    status: 409,
    message:
      'Webhook `{id}` is disabled; enable it first with PATCH /api/webhooks/{id} {"enabled": true} (cms webhooks enable <id>).',
  },
  workflow_transition_invalid: {
    status: 409,
    message:
      '{item} is in state `{state}` of workflow `{workflow}`, and {target} cannot be reached from there ({detail}). From `{state}` it can go to: {next}. GET /api/workflows/{item}/state lists its moves.',
  },
  in_use: { status: 409, message: '{resource} cannot be deleted; it is still used by {holders}.' },
  idempotency_key_in_progress: {
    status: 409,
    message:
      'A request with this Idempotency-Key is still being processed. Retry in a moment to get its answer.',
  },
  // 422
  idempotency_key_reused: {
    status: 422,
    message:
      'This Idempotency-Key was used with a different request (method, URL or body). Use a new key for a new request.',
  },
  hook_rejected: { status: 422, message: '{detail}' },
  hook_stopped: {
    status: 422,
    message:
      'A {event} hook was stopped, so the change was refused: {detail}. Fix the script or transform (or disable it) and retry.',
  },
  // 413
  payload_too_large: { status: 413, message: 'The request body is larger than {limit} bytes.' },
  too_many_records: {
    status: 413,
    message:
      'This import has {count} {what}; one request takes at most {max}. Split it into {suggestedCallCount} calls of at most {suggestedBatchSize} {what}.',
  },
  media_too_large: { status: 413, message: 'The uploaded file is larger than {limit} bytes (25 MB).' },
  // 415
  unsupported_content_encoding: {
    status: 415,
    message:
      'The request body is encoded with `{encoding}` (Content-Encoding), which this server does not read; send the body uncompressed, without Content-Encoding.',
  },
  // 429
  rate_limited: { status: 429, message: 'Too many requests: retry in {retryAfter} s.' },
  // 500
  internal_error: { status: 500, message: 'An internal error occurred. The request id is {requestId}.' },
  partial_site_creation: {
    status: 500,
    message: 'The site was created only in part. Retry the request; it is safe to repeat.',
  },
  // 502
  engine_error: { status: 502, message: 'The graph engine call failed: {detail}' },
  template_write_not_visible: {
    status: 502,
    message: 'The template write was not visible within {waitMs} ms. Retry; the write is idempotent.',
  },
  stock_provider_unavailable: { status: 502, message: 'No stock photo provider is reachable: {detail}' },
  embedding_provider_failed: { status: 502, message: 'The embedding provider failed: {detail}' },
  ai_provider_failed: { status: 502, message: 'The AI provider failed: {detail}' },
  // 503 / 504
  overloaded: { status: 503, message: 'The server is under pressure ({reason}); retry shortly.' },
  engine_unavailable: { status: 503, message: 'The graph engine is not available: {detail}' },
  ai_not_configured: {
    status: 503,
    message:
      'No AI provider is configured on this server: set AI_URL (and AI_MODEL, AI_API_KEY) to an OpenAI-compatible chat completions endpoint.',
  },
  shutting_down: {
    status: 503,
    message: 'The server is shutting down; send the request again (it did nothing here).',
  },
  query_timeout: { status: 504, message: 'The query ran longer than {timeoutMs} ms and was stopped.' },
} as const satisfies Record<string, { status: number; message: string }>;

/** Every error code the service answers with. */
export type ErrorCode = keyof typeof errorRegistry;

/** The HTTP status of an error code. */
export function statusOf(code: ErrorCode): number {
  return errorRegistry[code].status;
}
