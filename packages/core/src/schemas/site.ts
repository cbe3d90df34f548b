import { z } from 'zod';
import { parseSort, parseWhere } from '../content/list-language';
import { DateTime, SiteId, Slug, TypeName } from './common';

/** The build-time search index a site emits: `none` turns the built-in index off. */
export const SearchEmission = z.enum(['none', 'bm25', 'bm25+vector']).meta({ id: 'SearchEmission' });
export type SearchEmission = z.infer<typeof SearchEmission>;

/** A site's theme: colours and an optional font family. */
export const SiteTheme = z
  .object({
    primary: z.string().max(64).optional(),
    accent: z.string().max(64).optional(),
    font: z.string().max(200).nullable().optional(),
  })
  .meta({ id: 'SiteTheme' });
export type SiteTheme = z.infer<typeof SiteTheme>;

/**
 * A site-wide collection for templates (`site.collections.<name>`), computed once per build:
 * the items of `type` that `where` selects, sorted by `sort` (the `{% list %}` language), at
 * most `limit` (default and max 10000). With `groupBy: <field>`, the collection is instead one
 * group per distinct value of that field (each entry of a list field counts), ordered by value:
 * `{value, slug, count, items}`. A page that reads a collection depends on it: an incremental
 * build re-renders it when the collection's items change.
 */
export const SiteCollection = z
  .object({
    type: TypeName,
    where: z.string().max(2000).optional(),
    sort: z.string().max(500).optional(),
    limit: z.number().int().min(1).max(10_000).optional(),
    groupBy: z
      .string()
      .max(100)
      .regex(/^[A-Za-z_][\w.-]*$/, 'must be a field name')
      .optional(),
  })
  .superRefine((collection, ctx) => {
    const checks = [
      ['where', () => parseWhere(collection.where ?? '')],
      ['sort', () => parseSort(collection.sort)],
    ] as const;
    for (const [key, parse] of checks) {
      try {
        parse();
      } catch (error) {
        const message =
          error instanceof Error ? error.message.replace(/\. `where` is .*$/s, '') : String(error);
        ctx.addIssue({ code: 'custom', path: [key], message });
      }
    }
  })
  .meta({ id: 'SiteCollection' });
export type SiteCollection = z.infer<typeof SiteCollection>;

/** A site's collections by name (a name is a Liquid identifier); at most 32. */
export const SiteCollections = z
  .record(
    z
      .string()
      .max(64)
      .regex(/^[A-Za-z_]\w*$/, 'must be a name of letters, digits and _'),
    SiteCollection,
  )
  .refine((record) => Object.keys(record).length <= 32, 'at most 32 collections')
  .meta({ id: 'SiteCollections' });
export type SiteCollections = z.infer<typeof SiteCollections>;

/** A public URL (`http`/`https`). */
const PublicUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** Spec §2 Site. `graphName` is the engine-side graph (a uuid) and never changes. */
export const Site = z
  .object({
    id: SiteId,
    name: z.string().min(1).max(200),
    slug: Slug,
    graphName: z.string().min(1).max(200),
    publicUrl: PublicUrl.nullable().optional(),
    description: z.string().max(2000).optional(),
    mantra: z.string().max(500).optional(),
    theme: SiteTheme.optional(),
    searchEmission: SearchEmission.optional(),
    collections: SiteCollections.optional(),
    createdAt: DateTime,
  })
  .meta({ id: 'Site' });
export type Site = z.infer<typeof Site>;

/** GET /api/sites */
export const SiteList = z.array(Site).meta({ id: 'SiteList' });
export type SiteList = z.infer<typeof SiteList>;

/** The starter kit that seeds default content types and templates into a new site. */
export const StarterKit = z.enum(['designer', 'developer', 'author', 'none']).meta({ id: 'StarterKit' });
export type StarterKit = z.infer<typeof StarterKit>;

/**
 * POST /api/sites. Only `name` is required; `slug` defaults to a slug of the name. Without
 * `starterKit` the creator's persona picks one.
 */
export const CreateSiteBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    slug: Slug.optional(),
    publicUrl: PublicUrl.nullable().optional(),
    description: z.string().max(2000).optional(),
    mantra: z.string().max(500).optional(),
    theme: SiteTheme.optional(),
    searchEmission: SearchEmission.optional(),
    collections: SiteCollections.optional(),
    starterKit: StarterKit.optional(),
  })
  .meta({ id: 'CreateSiteBody' });
export type CreateSiteBody = z.infer<typeof CreateSiteBody>;

/**
 * PUT /api/sites/{id}: a partial Site with only the changed fields. `id`, `graphName` and
 * `createdAt` cannot change; if sent they are ignored (dropped by the schema).
 */
export const UpdateSiteBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    slug: Slug.optional(),
    publicUrl: PublicUrl.nullable().optional(),
    description: z.string().max(2000).optional(),
    mantra: z.string().max(500).optional(),
    theme: SiteTheme.optional(),
    searchEmission: SearchEmission.optional(),
    /** replaces the site's collections as a whole (`{}` removes them) */
    collections: SiteCollections.optional(),
  })
  .meta({ id: 'UpdateSiteBody' });
export type UpdateSiteBody = z.infer<typeof UpdateSiteBody>;

/** Path parameters of /api/sites/{id}. */
export const SiteParams = z.object({ id: SiteId });
export type SiteParams = z.infer<typeof SiteParams>;

/** DELETE /api/sites/{id}: a soft delete; the engine keeps the data for its retention period. */
export const DeleteSiteResponse = z
  .object({ ok: z.literal(true), id: SiteId, deletedAt: DateTime })
  .meta({ id: 'DeleteSiteResponse' });
export type DeleteSiteResponse = z.infer<typeof DeleteSiteResponse>;

/** The `X-Site-Id` header of site-scoped endpoints. */
export const SiteHeaders = z.object({ 'x-site-id': SiteId });
export type SiteHeaders = z.infer<typeof SiteHeaders>;
