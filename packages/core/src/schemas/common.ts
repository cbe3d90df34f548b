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
export const ContentId = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]*:[^\s:/?#][^\s/?#]*$/, 'must have the shape <type>:<slug>');
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

/** The error body of every non-2xx answer (spec §7). */
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
