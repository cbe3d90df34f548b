import { z } from 'zod';
import { AssetId, DateTime, QueryFlag, QueryInt } from './common';

/** The largest media upload, in bytes (docs/api-spec.md §8: 25 MB). */
export const MAX_MEDIA_BYTES = 25 * 1024 * 1024;

/** The stock photo providers of GET /api/media/stock. */
export const StockProvider = z.enum(['pexels', 'unsplash', 'pixabay']).meta({ id: 'StockProvider' });
export type StockProvider = z.infer<typeof StockProvider>;

/** The credit an imported stock photo carries: who took it, where it came from, under which licence. */
export const StockCredit = z
  .object({
    provider: StockProvider,
    id: z.string(),
    photographer: z.string().nullable(),
    photographerUrl: z.string().nullable(),
    pageUrl: z.string().nullable(),
    license: z.string(),
  })
  .meta({ id: 'StockCredit' });
export type StockCredit = z.infer<typeof StockCredit>;

/**
 * Spec §2 media asset. The file's sha256 is both its file name (`url`) and its de-duplication
 * key. `width` and `height` are null for files that are not images or videos.
 */
export const MediaAsset = z
  .object({
    ok: z.boolean(),
    id: AssetId,
    url: z
      .string()
      .regex(/^\/media\/assets\/[0-9a-f]{64}\.[A-Za-z0-9]+$/, 'must be /media/assets/<sha>.<ext>'),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    filename: z.string(),
    mimetype: z.string(),
    bytes: z.number().int().min(0),
    width: z.number().int().min(0).nullable().optional(),
    height: z.number().int().min(0).nullable().optional(),
    uploadedBy: z.string(),
    uploadedAt: DateTime,
    /** Where an imported stock photo came from, to credit as the provider asks (POST /api/media/stock/import). */
    credit: StockCredit.optional(),
  })
  .meta({ id: 'MediaAsset' });
export type MediaAsset = z.infer<typeof MediaAsset>;

/** GET /api/media: newest first. */
export const MediaAssetList = z.array(MediaAsset).meta({ id: 'MediaAssetList' });
export type MediaAssetList = z.infer<typeof MediaAssetList>;

/** GET /api/media with `countOnly=1`. */
export const MediaCount = z.object({ total: z.number().int().min(0) }).meta({ id: 'MediaCount' });
export type MediaCount = z.infer<typeof MediaCount>;

/** GET /api/media query: `q` is a file-name substring; `countOnly` answers `{total}`. */
export const MediaListQuery = z.object({
  q: z.string().max(200).optional(),
  countOnly: QueryFlag.optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: QueryInt.optional(),
});
export type MediaListQuery = z.infer<typeof MediaListQuery>;

/** Path parameters of /api/media/{id}. */
export const MediaParams = z.object({ id: AssetId });
export type MediaParams = z.infer<typeof MediaParams>;

/** DELETE /api/media/{id}: the asset node and its file are gone. */
export const DeleteMediaResponse = z
  .object({ ok: z.literal(true), id: AssetId })
  .meta({ id: 'DeleteMediaResponse' });
export type DeleteMediaResponse = z.infer<typeof DeleteMediaResponse>;

/** GET /api/media/stock query: `page` counts from 1; `perPage` default 20 (at most 80). */
export const StockQuery = z.object({
  provider: StockProvider,
  q: z.string().trim().min(1).max(200),
  orientation: z.enum(['landscape', 'portrait', 'square']).optional(),
  page: z.coerce.number().int().min(1).max(1000).optional(),
  perPage: z.coerce.number().int().min(1).max(80).optional(),
});
export type StockQuery = z.infer<typeof StockQuery>;

/** One stock photo, normalized from the provider. */
export const StockItem = z
  .object({
    id: z.string(),
    url: z.string(),
    thumb: z.string(),
    photographer: z.string().nullable(),
    source: z.string(),
    width: z.number().int().min(0),
    height: z.number().int().min(0),
    /** The photo's page on the provider's site (link it when crediting). */
    pageUrl: z.string().optional(),
    /** The photographer's page on the provider's site. */
    photographerUrl: z.string().nullable().optional(),
    /** The provider's description of the photo, when it has one. */
    alt: z.string().nullable().optional(),
  })
  .meta({ id: 'StockItem' });
export type StockItem = z.infer<typeof StockItem>;

/** The answer of GET /api/media/stock (`page`, `perPage`, `total` when the provider tells them). */
export const StockResponse = z
  .object({
    items: z.array(StockItem),
    page: z.number().int().min(1).optional(),
    perPage: z.number().int().min(1).optional(),
    total: z.number().int().min(0).optional(),
  })
  .meta({ id: 'StockResponse' });
export type StockResponse = z.infer<typeof StockResponse>;

/** POST /api/media/stock/import: the provider and the photo's id (as GET /api/media/stock answered it). */
export const StockImportBody = z
  .object({
    provider: StockProvider,
    id: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9_-]+$/, 'must be a provider photo id such as 2014422'),
    /** The stored file name; default `<provider>-<id>.<ext>`. */
    filename: z.string().min(1).max(255).optional(),
  })
  .meta({ id: 'StockImportBody' });
export type StockImportBody = z.infer<typeof StockImportBody>;

/** Path parameters of GET /media/assets/{sha}.{ext} (outside /api, no auth): the file's sha256 and extension. */
export const MediaFileParams = z.object({
  sha: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256'),
  ext: z.string().regex(/^[A-Za-z0-9]{1,10}$/, 'must be a file extension such as png'),
});
export type MediaFileParams = z.infer<typeof MediaFileParams>;
