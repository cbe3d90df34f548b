import { z } from 'zod';

/** ISO 8601 date-time string. */
export const DateTime = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time');

/** A slug: lowercase letters, digits and dashes, starting with a letter or digit. */
export const Slug = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes');

/** `site:<slug>` */
export const SiteId = z.string().regex(/^site:[a-z0-9][a-z0-9-]*$/, 'must have the shape site:<slug>');
/** `<type>:<slug>` */
export const CONTENT_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*:[^\s:/?#][^\s/?#]*$/;
export const ContentId = z.string().regex(CONTENT_ID_PATTERN, 'must have the shape <type>:<slug>');
/** `release:<name>` */
export const ReleaseId = z.string().regex(/^release:[^\s/]+$/, 'must have the shape release:<name>');
/** `deploy:<id>` */
export const DeploymentId = z.string().regex(/^deploy:[^\s/]+$/, 'must have the shape deploy:<id>');
/** `env:<name>` */
export const EnvironmentId = z.string().regex(/^env:[^\s/]+$/, 'must have the shape env:<name>');
/** `asset:<id>` */
export const AssetId = z.string().regex(/^asset:[^\s/]+$/, 'must have the shape asset:<id>');

/** An uppercase identifier, as graph edge labels must be: `ACTED_IN`. */
export const EdgeLabel = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an uppercase identifier such as ACTED_IN')
  .max(64);

/** A free-form JSON object. */
export const JsonObject = z.record(z.string(), z.unknown());

/** The error body of every non-2xx answer (docs/api-spec.md §7). */
export const ErrorSchema = z
  .object({
    error: z.string(),
    code: z.string().optional(),
    hint: z.string().optional(),
  })
  .loose()
  .meta({ id: 'Error' });

/** `0`/`1`/`true`/`false` query flags. */
export const QueryFlag = z
  .enum(['0', '1', 'true', 'false'])
  .transform((value) => value === '1' || value === 'true');

/** A non-negative integer given in a query string. */
export const QueryInt = z.coerce.number().int().min(0);

/**
 * A content type name: used as a URL path segment and as the `<type>` of `<type>:<slug>` ids.
 * Letters, digits, `_` and `-`, starting with a letter.
 */
export const TYPE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** The longest {@link TypeName}. */
export const TYPE_NAME_MAX_LENGTH = 64;
export const TypeName = z
  .string()
  .min(1)
  .max(TYPE_NAME_MAX_LENGTH)
  .regex(TYPE_NAME_PATTERN, 'must start with a letter and hold only letters, digits, _ and -');

/** A graph node label: an identifier such as `Movie`. */
export const NodeLabel = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'must be an identifier such as Movie');

/** A field name: an identifier such as `title` or `release_year`. */
export const FieldName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier such as title');

/**
 * The name of a named resource that appears in a URL path (templates, scripts, queries,
 * views, widgets, block types): letters, digits, `.`, `_` and `-`; no slashes.
 */
export const ResourceName = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/, 'must hold only letters, digits, ., _ and -')
  .refine((name) => !name.includes('..'), 'must not contain ..');

/** A role on the platform or on a site (docs/api-spec.md §5). */
export const Role = z.enum(['owner', 'admin', 'editor', 'publisher', 'viewer']).meta({ id: 'Role' });
export type Role = z.infer<typeof Role>;

/** A user's role on the whole platform (docs/api-spec.md §5.5): owner or admin; null when the user has none. */
export const PlatformRole = Role.extract(['owner', 'admin']).meta({ id: 'PlatformRole' });
export type PlatformRole = z.infer<typeof PlatformRole>;

/**
 * A `limit` query parameter: a positive integer up to `max`, `fallback` when absent.
 */
export function queryLimit({ fallback, max }: { fallback: number; max: number }) {
  return z.coerce.number().int().min(1).max(max).default(fallback);
}

/** An `offset` query parameter: how many records a list skips, 0 when absent. */
export function queryOffset() {
  return QueryInt.default(0);
}

/**
 * The paging query of a list read whole (types, templates, resources, versions…): `limit`
 * (1 to 1000; absent: every record) and `offset` (default 0).
 */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: queryOffset(),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** `true`/`1` query flag (also `false`/`0`), absent means false. */
export const OptionalQueryFlag = QueryFlag.optional();

/** `{ok: true}`: the body of a write whose answer carries nothing else. */
export const OkResponse = z.object({ ok: z.literal(true) }).meta({ id: 'Ok' });

/** The response schema of a 204 No Content answer (no body). */
export const NoContent = z.null().describe('No content');
