import { z } from 'zod';
import { DateTime, JsonObject, Slug } from './common';

/**
 * Page kits (`/api/page-kits`) are reusable layout fragments: a ready-made arrangement of
 * blocks (e.g. "hero + three features + call to action") an editor drops into an item body,
 * and/or a Liquid fragment with named `slots` a template includes. `blocks` are block
 * document blocks without ids (ids are given when the kit is applied); `category` and `tags`
 * group kits in the admin UI.
 */
export const PageKitBlock = z
  .object({ type: z.string().min(1).max(64), data: JsonObject })
  .meta({ id: 'PageKitBlock' });
export type PageKitBlock = z.infer<typeof PageKitBlock>;

const pageKitShape = {
  id: Slug,
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  category: z.string().max(64).optional(),
  tags: z.array(z.string().max(64)).max(50).optional(),
  thumbnail: z.string().max(2048).nullable().optional(),
  blocks: z.array(PageKitBlock).max(200).default([]),
  /** Liquid source of the fragment; `{{ slots.<name> }}` marks where slot content goes. */
  template: z.string().max(100_000).optional(),
  slots: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/))
    .max(50)
    .optional(),
};

/** A page kit (GET /api/page-kits/{id}). */
export const PageKit = z
  .object({ ...pageKitShape, createdAt: DateTime.optional(), updatedAt: DateTime.optional() })
  .meta({
    id: 'PageKit',
    description:
      'A reusable layout fragment: a ready-made arrangement of blocks an editor drops into an item body, and/or a Liquid fragment with named slots.',
  });
export type PageKit = z.infer<typeof PageKit>;

/** GET /api/page-kits */
export const PageKitList = z.array(PageKit).meta({ id: 'PageKitList' });
export type PageKitList = z.infer<typeof PageKitList>;

/** POST /api/page-kits: `id` defaults to a slug of the name; a kit needs blocks or a template. */
export const CreatePageKitBody = z
  .object({ ...pageKitShape, id: Slug.optional() })
  .refine((kit) => kit.blocks.length > 0 || kit.template !== undefined, {
    message: 'a page kit needs blocks or a template',
    path: ['blocks'],
  })
  .meta({ id: 'CreatePageKitBody' });
export type CreatePageKitBody = z.infer<typeof CreatePageKitBody>;

/** PUT /api/page-kits/{id}: the given keys replace the stored ones. */
export const UpdatePageKitBody = z
  .object(pageKitShape)
  .omit({ id: true })
  .extend({ blocks: z.array(PageKitBlock).max(200).optional() })
  .partial()
  .meta({ id: 'UpdatePageKitBody' });
export type UpdatePageKitBody = z.infer<typeof UpdatePageKitBody>;

/** Path parameters of /api/page-kits/{id}. */
export const PageKitParams = z.object({ id: Slug });
export type PageKitParams = z.infer<typeof PageKitParams>;
