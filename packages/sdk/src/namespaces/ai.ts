import {
  type AiAltTextBody,
  AiAltTextResponse,
  type AiSeoDescriptionBody,
  AiSeoDescriptionResponse,
  type AiSuggestTagsBody,
  AiSuggestTagsResponse,
  type AiSummarizeBody,
  AiSummarizeResponse,
  type AiTranslateBody,
  AiTranslateResponse,
} from '@trelliscms/core';
import type { CallOptions, Transport } from '../http/transport';

/**
 * Assistant capabilities on the site's content (`/api/ai`, docs/ai.md). Every answer is a
 * suggestion — nothing is written — with the model that answered and its token `usage`.
 * Errors: 503 `ai_not_configured` (the server has no AI_URL), 429 `rate_limited` (the site's
 * calls of this minute are used), 502 `ai_provider_failed` (the provider's message).
 */
export interface AiApi {
  /** POST /api/ai/seo-description: a meta description of an item (`itemId`) or a `text`. */
  seoDescription(body: AiSeoDescriptionBody, options?: CallOptions): Promise<AiSeoDescriptionResponse>;
  /** POST /api/ai/alt-text: alt text for a stored image (`assetId`), an `imageUrl` and/or a `description`. */
  altText(body: AiAltTextBody, options?: CallOptions): Promise<AiAltTextResponse>;
  /** POST /api/ai/suggest-tags: tags for an item or a text, chosen only from the site's existing tags. */
  suggestTags(body: AiSuggestTagsBody, options?: CallOptions): Promise<AiSuggestTagsResponse>;
  /** POST /api/ai/summarize: a summary of an item or a text. */
  summarize(body: AiSummarizeBody, options?: CallOptions): Promise<AiSummarizeResponse>;
  /**
   * POST /api/ai/translate: the item's translatable fields in `locale`, proposed; store them
   * with `site.locales.setTranslations(answer.locale, answer.apply.body)`.
   */
  translate(body: AiTranslateBody, options?: CallOptions): Promise<AiTranslateResponse>;
}

export function createAiApi(transport: Transport): AiApi {
  return {
    seoDescription: (body, options = {}) =>
      transport.request({
        method: 'post',
        path: 'ai/seo-description',
        schema: AiSeoDescriptionResponse,
        json: body,
        ...options,
      }),
    altText: (body, options = {}) =>
      transport.request({
        method: 'post',
        path: 'ai/alt-text',
        schema: AiAltTextResponse,
        json: body,
        ...options,
      }),
    suggestTags: (body, options = {}) =>
      transport.request({
        method: 'post',
        path: 'ai/suggest-tags',
        schema: AiSuggestTagsResponse,
        json: body,
        ...options,
      }),
    summarize: (body, options = {}) =>
      transport.request({
        method: 'post',
        path: 'ai/summarize',
        schema: AiSummarizeResponse,
        json: body,
        ...options,
      }),
    translate: (body, options = {}) =>
      transport.request({
        method: 'post',
        path: 'ai/translate',
        schema: AiTranslateResponse,
        json: body,
        ...options,
      }),
  };
}
