import { z } from 'zod';
import { AssetId, ContentId } from './common';
import { LocaleCode } from './locales';

/**
 * The `/api/ai` namespace: assistant capabilities on a site's content through an
 * OpenAI-compatible chat provider (docs/ai.md). Every answer is a suggestion the caller applies
 * (nothing is written), with the model that answered and the tokens it used.
 */

/** Tokens the provider counted for one call. */
export const AiUsage = z
  .object({
    prompt: z.number().int().min(0),
    completion: z.number().int().min(0),
    total: z.number().int().min(0),
  })
  .meta({ id: 'AiUsage' });
export type AiUsage = z.infer<typeof AiUsage>;

const answered = { model: z.string(), usage: AiUsage };

/** Source text: an item (its text fields) or the text itself; exactly one. */
const itemOrText = {
  itemId: ContentId.optional(),
  text: z.string().trim().min(1).max(20_000).optional(),
};
const oneSource = (body: { itemId?: string; text?: string }) =>
  (body.itemId === undefined) !== (body.text === undefined);
const oneSourceMessage = { message: 'give exactly one of itemId and text' };

/** POST /api/ai/seo-description. */
export const AiSeoDescriptionBody = z
  .object({
    ...itemOrText,
    /** The longest description wanted, in characters (default 160). */
    maxLength: z.number().int().min(50).max(500).optional(),
  })
  .refine(oneSource, oneSourceMessage)
  .meta({ id: 'AiSeoDescriptionBody' });
export type AiSeoDescriptionBody = z.infer<typeof AiSeoDescriptionBody>;

export const AiSeoDescriptionResponse = z
  .object({ description: z.string(), ...answered })
  .meta({ id: 'AiSeoDescriptionResponse' });
export type AiSeoDescriptionResponse = z.infer<typeof AiSeoDescriptionResponse>;

/** POST /api/ai/alt-text: a stored asset, an image URL the provider can fetch, or a description. */
export const AiAltTextBody = z
  .object({
    assetId: AssetId.optional(),
    imageUrl: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    description: z.string().trim().min(1).max(2000).optional(),
  })
  .refine(
    (body) => body.assetId !== undefined || body.imageUrl !== undefined || body.description !== undefined,
    {
      message: 'give assetId, imageUrl or description',
    },
  )
  .refine((body) => !(body.assetId !== undefined && body.imageUrl !== undefined), {
    message: 'give assetId or imageUrl, not both',
  })
  .meta({ id: 'AiAltTextBody' });
export type AiAltTextBody = z.infer<typeof AiAltTextBody>;

export const AiAltTextResponse = z.object({ alt: z.string(), ...answered }).meta({ id: 'AiAltTextResponse' });
export type AiAltTextResponse = z.infer<typeof AiAltTextResponse>;

/** POST /api/ai/suggest-tags: tags chosen only from the site's existing tags. */
export const AiSuggestTagsBody = z
  .object({
    ...itemOrText,
    /** At most this many tags (default 5). */
    max: z.number().int().min(1).max(20).optional(),
  })
  .refine(oneSource, oneSourceMessage)
  .meta({ id: 'AiSuggestTagsBody' });
export type AiSuggestTagsBody = z.infer<typeof AiSuggestTagsBody>;

/** A tag of the site: an item of the type `tag` (`id` is its item id), or a value of a `tags` string list (`id` is the value). */
export const AiTag = z
  .object({ id: z.string(), label: z.string(), source: z.enum(['item', 'value']) })
  .meta({ id: 'AiTag' });
export type AiTag = z.infer<typeof AiTag>;

export const AiSuggestTagsResponse = z
  .object({
    tags: z.array(AiTag),
    /** Tags the model named that the site does not have: dropped, listed so the caller can see. */
    rejected: z.array(z.string()),
    ...answered,
  })
  .meta({ id: 'AiSuggestTagsResponse' });
export type AiSuggestTagsResponse = z.infer<typeof AiSuggestTagsResponse>;

/** POST /api/ai/summarize. */
export const AiSummarizeBody = z
  .object({
    ...itemOrText,
    /** About this many words at most (default 60). */
    maxWords: z.number().int().min(5).max(500).optional(),
  })
  .refine(oneSource, oneSourceMessage)
  .meta({ id: 'AiSummarizeBody' });
export type AiSummarizeBody = z.infer<typeof AiSummarizeBody>;

export const AiSummarizeResponse = z
  .object({ summary: z.string(), ...answered })
  .meta({ id: 'AiSummarizeResponse' });
export type AiSummarizeResponse = z.infer<typeof AiSummarizeResponse>;

/** POST /api/ai/translate: the item's translatable fields, translated into one of the site's locales. */
export const AiTranslateBody = z
  .object({
    itemId: ContentId,
    locale: LocaleCode,
    /** Only these translatable fields (default: every translatable field with a text value). */
    fields: z.array(z.string().min(1).max(100)).max(100).optional(),
  })
  .meta({ id: 'AiTranslateBody' });
export type AiTranslateBody = z.infer<typeof AiTranslateBody>;

export const AiTranslateResponse = z
  .object({
    itemId: ContentId,
    locale: LocaleCode,
    /** The locale of the source values (the site's default locale). */
    sourceLocale: LocaleCode.nullable(),
    /** The proposed translated values, by field. Nothing is stored: apply them with `apply`. */
    fields: z.record(z.string(), z.string()),
    /** The request that stores the proposal as the item's values in `locale`. */
    apply: z.object({
      method: z.literal('PUT'),
      path: z.string(),
      body: z.object({
        items: z.array(z.object({ itemId: ContentId, fields: z.record(z.string(), z.string()) })),
      }),
    }),
    ...answered,
  })
  .meta({ id: 'AiTranslateResponse' });
export type AiTranslateResponse = z.infer<typeof AiTranslateResponse>;
