import { resolve } from 'node:path';
import {
  AiAltTextBody,
  AiAltTextResponse,
  AiSeoDescriptionBody,
  AiSeoDescriptionResponse,
  AiSuggestTagsBody,
  AiSuggestTagsResponse,
  AiSummarizeBody,
  AiSummarizeResponse,
  AiTranslateBody,
  AiTranslateResponse,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { mediaFilesFor } from '../../media/media-files';
import {
  type AssistantContext,
  altText,
  seoDescription,
  suggestTags,
  summarize,
  translate,
} from '../assistant';
import { createChatProvider } from '../chat-provider';
import { SiteRateLimiter } from '../site-rate-limiter';

const errors = errorResponses(400, 401, 403, 404, 429, 502, 503);
const tags = ['ai'];
const NOTE =
  ' A suggestion: nothing is written. The answer names the model and its token usage (`usage`). 503 `ai_not_configured` without AI_URL; 429 `rate_limited` (with Retry-After) past AI_RATE_LIMIT calls per site per minute; 502 `ai_provider_failed` with the provider’s message when it fails.';

/**
 * The `/api/ai` namespace (docs/ai.md): assistant capabilities on the site's content through
 * the OpenAI-compatible chat provider of AI_URL, AI_MODEL, AI_API_KEY, called through the
 * server's guarded fetcher. Every answer is a suggestion the caller applies; calls are counted
 * per site (AI_RATE_LIMIT per minute).
 */
export const aiRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.trellis;
  const provider = createChatProvider(config, app.trellis.outbound);
  const limiter = new SiteRateLimiter({ perMinute: config.AI_RATE_LIMIT, clock: app.trellis.clock });
  const files = mediaFilesFor(app.trellis.objectStore, resolve(config.CMS_DATA_DIR));

  /** The task's context, once the provider is known to be configured and the site has a call left. */
  function contextOf(request: FastifyRequest): AssistantContext {
    if (!provider) {
      throw TrellisError.of(
        'ai_not_configured',
        {},
        {
          hint: 'Set AI_URL to an OpenAI-compatible endpoint (e.g. https://api.openai.com/v1), AI_MODEL to its model and AI_API_KEY to its key, then restart the server. See docs/ai.md.',
        },
      );
    }
    const site = siteOf(request);
    limiter.take(site.id);
    return { graph: site.graph, provider, files };
  }

  // Editors and above: the calls draft content and spend the provider's tokens.
  const route = { siteScope: 'site', permission: 'content:write' } as const;

  app.post(
    '/api/ai/seo-description',
    {
      schema: {
        tags,
        summary: 'Draft an SEO meta description of an item or a text',
        description: `Body: \`itemId\` (its text fields are read) or \`text\`, optional \`maxLength\` (default 160 characters).${NOTE}`,
        body: AiSeoDescriptionBody,
        response: { 200: AiSeoDescriptionResponse, ...errors },
      },
      config: route,
    },
    async (request) => seoDescription(contextOf(request), request.body),
  );

  app.post(
    '/api/ai/alt-text',
    {
      schema: {
        tags,
        summary: 'Draft alt text for an image',
        description: `Body: \`assetId\` (a stored image, sent to the model inline), or \`imageUrl\` (the provider fetches it), and/or \`description\`. The model must accept images for the first two.${NOTE}`,
        body: AiAltTextBody,
        response: { 200: AiAltTextResponse, ...errors },
      },
      config: route,
    },
    async (request) => altText(contextOf(request), request.body),
  );

  app.post(
    '/api/ai/suggest-tags',
    {
      schema: {
        tags,
        summary: "Suggest tags for an item or a text, chosen from the site's existing tags",
        description: `The tags to choose from are the items of the content type \`tag\` and the values of \`tags\` string-list fields; a name the model answers that is not one of them is dropped and listed in \`rejected\`. 400 when the site has no tags.${NOTE}`,
        body: AiSuggestTagsBody,
        response: { 200: AiSuggestTagsResponse, ...errors },
      },
      config: route,
    },
    async (request) => suggestTags(contextOf(request), request.body),
  );

  app.post(
    '/api/ai/summarize',
    {
      schema: {
        tags,
        summary: 'Summarise an item or a text',
        description: `Body: \`itemId\` or \`text\`, optional \`maxWords\` (default 60).${NOTE}`,
        body: AiSummarizeBody,
        response: { 200: AiSummarizeResponse, ...errors },
      },
      config: route,
    },
    async (request) => summarize(contextOf(request), request.body),
  );

  app.post(
    '/api/ai/translate',
    {
      schema: {
        tags,
        summary: "Translate an item's translatable fields into one of the site's locales",
        description: `Answers the proposed values of the item's translatable text fields in \`locale\` and \`apply\`, the \`PUT /api/locales/{code}/translations\` request that stores them as the item's translation. 400 when \`locale\` is not one of the site's locales (or is its default), or the item has no translatable text.${NOTE}`,
        body: AiTranslateBody,
        response: { 200: AiTranslateResponse, ...errors },
      },
      config: route,
    },
    async (request) => translate(contextOf(request), request.body),
  );
};
