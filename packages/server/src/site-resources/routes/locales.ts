import {
  CreateLocaleBody,
  Locale,
  LocaleList,
  LocaleParams,
  NoContent,
  PageQuery,
  Translations,
  TranslationsQuery,
  UpdateLocaleBody,
  UpdateTranslationsBody,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { ifMatchOf, withEtag } from '../../http/etag';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { valueTag } from '../../shared/entity-tag';
import {
  createLocale,
  deleteLocale,
  getLocale,
  listLocales,
  readTranslations,
  updateLocale,
  writeTranslations,
} from '../locales';

const errors = errorResponses(400, 401, 403, 404, 409);
const tags = ['locales'];

/**
 * `/api/locales`: the languages a site publishes in (exactly one default, fallbacks), and
 * `/api/locales/{code}/translations`: each locale's UI strings and item field values
 * (docs/locales.md).
 */
export const localeRoutes: FastifyPluginAsyncZod = async (app) => {
  const now = () => app.trellis.clock.now().toISOString();

  app.get(
    '/api/locales',
    {
      schema: {
        tags,
        summary: 'List the site’s locales',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: LocaleList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const page = pageOf(await listLocales(siteOf(request).graph), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.get(
    '/api/locales/:code',
    {
      schema: { tags, summary: 'One locale', params: LocaleParams, response: { 200: Locale, ...errors } },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const locale = await getLocale(siteOf(request).graph, request.params.code);
      return withEtag(reply, valueTag(locale)).send(locale);
    },
  );

  app.post(
    '/api/locales',
    {
      schema: {
        tags,
        summary: 'Add a locale',
        description:
          'The site’s first locale is its default; `default: true` moves the default to the new locale. 409 `conflict` when the code exists; 400 when `fallback` names no locale or would form a cycle.',
        body: CreateLocaleBody,
        response: { 201: Locale, ...errors },
      },
      config: { siteScope: 'site', permission: 'types:manage' },
    },
    async (request, reply) => {
      const locale = await createLocale({
        graph: siteOf(request).graph,
        body: request.body,
        actor: actorOf(request.principal!),
        now: now(),
      });
      return withEtag(reply, valueTag(locale)).status(201).send(locale);
    },
  );

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: '/api/locales/:code',
      schema: {
        tags,
        summary: 'Change a locale (the given keys replace the stored ones)',
        description:
          '`default: true` makes it the default (the previous default stops being one); `fallback: null` removes its fallback. With `If-Match` (the ETag of the read), 409 `version_conflict` when it changed since.',
        params: LocaleParams,
        body: UpdateLocaleBody,
        response: { 200: Locale, ...errors },
      },
      config: { siteScope: 'site', permission: 'types:manage' },
      handler: async (request, reply) => {
        const locale = await updateLocale({
          graph: siteOf(request).graph,
          code: request.params.code,
          patch: request.body,
          precondition: ifMatchOf(request),
          actor: actorOf(request.principal!),
          now: now(),
        });
        return withEtag(reply, valueTag(locale)).send(locale);
      },
    });
  }

  app.delete(
    '/api/locales/:code',
    {
      schema: {
        tags,
        summary: 'Delete a locale and its translations',
        description:
          '204; 409 `conflict` for the default locale while the site has others, and for a locale another one falls back to.',
        params: LocaleParams,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: 'types:manage' },
    },
    async (request, reply) => {
      await deleteLocale({
        graph: siteOf(request).graph,
        code: request.params.code,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/locales/:code/translations',
    {
      schema: {
        tags,
        summary: 'A locale’s UI strings and item field values',
        description:
          'Stored values only (no fallback applied). `itemId` keeps only that item’s values. The ETag (of the answer without `itemId`) is what `If-Match` of the PUT compares.',
        params: LocaleParams,
        querystring: TranslationsQuery,
        response: { 200: Translations, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      const { code } = request.params;
      const translations = await readTranslations({ graph, code, itemId: request.query.itemId });
      const whole =
        request.query.itemId === undefined ? translations : await readTranslations({ graph, code });
      return withEtag(reply, valueTag(whole)).send(translations);
    },
  );

  app.put(
    '/api/locales/:code/translations',
    {
      schema: {
        tags,
        summary: 'Set a locale’s UI strings and item field values',
        description:
          'Merges `entries` (UI strings for the `t` filter) and each item’s `fields` (only fields its type marks `translatable`) into the stored ones; a null value deletes its key or field; `replace: true` replaces the UI strings, and the fields of each item named, as a whole. The default locale takes no item fields (they are the items’ own). With `If-Match`, 409 `version_conflict` when the translations changed since they were read.',
        params: LocaleParams,
        body: UpdateTranslationsBody,
        response: { 200: Translations, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      const translations = await writeTranslations({
        graph: siteOf(request).graph,
        code: request.params.code,
        body: request.body,
        precondition: ifMatchOf(request),
        actor: actorOf(request.principal!),
        now: now(),
      });
      return withEtag(reply, valueTag(translations)).send(translations);
    },
  );
};
