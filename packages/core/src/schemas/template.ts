import { z } from 'zod';
import { DateTime, ResourceName, TypeName } from './common';

/** A template name: letters, digits, `.`, `_` and `-` (it is a URL path segment). */
export const TemplateName = ResourceName;

/** A content type name, or the empty string for a wildcard template bound to all types. */
export const BoundType = z.union([TypeName, z.literal('')]);

/** The largest template source accepted, in characters. */
export const MAX_TEMPLATE_LENGTH = 1_000_000;

/**
 * Spec §2 Template: Liquid source at a version. `version` is the version shown (the head on
 * a single read), `latestVersion` the newest; `boundType` names the content type whose item
 * pages it renders (empty: all types); disabled templates are not rendered.
 */
export const Template = z
  .object({
    name: z.string(),
    content: z.string(),
    version: z.number().int().min(1),
    latestVersion: z.number().int().min(1).optional(),
    boundType: z.string().optional(),
    enabled: z.boolean().optional(),
    updatedAt: DateTime.optional(),
  })
  .meta({ id: 'Template' });
export type Template = z.infer<typeof Template>;

/** GET /api/templates */
export const TemplateList = z.array(Template).meta({ id: 'TemplateList' });
export type TemplateList = z.infer<typeof TemplateList>;

const Source = z.string().max(MAX_TEMPLATE_LENGTH);

function sameSourceIfBoth(body: { content?: string; html?: string }): boolean {
  return body.content === undefined || body.html === undefined || body.content === body.html;
}

/**
 * POST /api/templates: `name` and the Liquid source in `content` or its alias `html` (if both
 * are given they must be equal). Read the source with {@link templateSource}.
 */
export const CreateTemplateBody = z
  .object({
    name: TemplateName,
    content: Source.optional(),
    html: Source.optional(),
    boundType: BoundType.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((body) => body.content !== undefined || body.html !== undefined, {
    message: 'give the Liquid source in content (or its alias html)',
    path: ['content'],
  })
  .refine(sameSourceIfBoth, { message: 'content and html differ; send one of them', path: ['html'] })
  .meta({ id: 'CreateTemplateBody' });
export type CreateTemplateBody = z.infer<typeof CreateTemplateBody>;

/** PUT /api/templates/{name}: every key optional; a write creates a new version. */
export const UpdateTemplateBody = z
  .object({
    content: Source.optional(),
    html: Source.optional(),
    boundType: BoundType.optional(),
    enabled: z.boolean().optional(),
  })
  .refine(sameSourceIfBoth, { message: 'content and html differ; send one of them', path: ['html'] })
  .meta({ id: 'UpdateTemplateBody' });
export type UpdateTemplateBody = z.infer<typeof UpdateTemplateBody>;

/** The Liquid source of a template write: `content`, else its alias `html`. */
export function templateSource(body: { content?: string; html?: string }): string | undefined {
  return body.content ?? body.html;
}

/** Path parameters of /api/templates/{name}. */
export const TemplateParams = z.object({ name: TemplateName });
export type TemplateParams = z.infer<typeof TemplateParams>;
