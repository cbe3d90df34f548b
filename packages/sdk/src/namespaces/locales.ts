import {
  type CreateLocaleBody,
  Locale,
  LocaleList,
  Translations,
  type UpdateLocaleBody,
  type UpdateTranslationsBody,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';

/** Locales of the site (`/api/locales`, keyed by code) and their translations (docs/locales.md). */
export interface LocalesApi {
  /** GET /api/locales: every locale, by code. */
  list(options?: CallOptions): Promise<Locale[]>;
  /** GET /api/locales/{code} */
  get(code: string, options?: CallOptions): Promise<Locale>;
  /** POST /api/locales: the site's first locale is its default; `default: true` moves the default. */
  create(body: z.input<typeof CreateLocaleBody>, options?: CallOptions): Promise<Locale>;
  /** PATCH /api/locales/{code}: the given keys replace the stored ones (`fallback: null` removes it). */
  update(code: string, body: z.input<typeof UpdateLocaleBody>, options?: CallOptions): Promise<Locale>;
  /** Makes a locale the default (PATCH with `default: true`); the previous default stops being one. */
  setDefault(code: string, options?: CallOptions): Promise<Locale>;
  /** DELETE /api/locales/{code}, with its translations (409 for the default while others exist). */
  delete(code: string, options?: CallOptions): Promise<void>;
  /** GET /api/locales/{code}/translations: UI strings and item field values (`itemId`: one item's). */
  translations(code: string, query?: { itemId?: string }, options?: CallOptions): Promise<Translations>;
  /** PUT /api/locales/{code}/translations: merges UI strings and item field values (null deletes). */
  setTranslations(
    code: string,
    body: z.input<typeof UpdateTranslationsBody>,
    options?: CallOptions,
  ): Promise<Translations>;
}

export function createLocalesApi(transport: Transport): LocalesApi {
  const update: LocalesApi['update'] = (code, body, options = {}) =>
    transport.request({
      method: 'patch',
      path: path('locales', code),
      schema: Locale,
      json: body,
      ...options,
    });
  return {
    list: (options = {}) =>
      transport.request({ method: 'get', path: 'locales', schema: LocaleList, ...options }),
    get: (code, options = {}) =>
      transport.request({ method: 'get', path: path('locales', code), schema: Locale, ...options }),
    create: (body, options = {}) =>
      transport.request({ method: 'post', path: 'locales', schema: Locale, json: body, ...options }),
    update,
    setDefault: (code, options = {}) => update(code, { default: true }, options),
    delete: async (code, options = {}) => {
      await transport.send({ method: 'delete', path: path('locales', code), ...options });
    },
    translations: (code, query = {}, options = {}) =>
      transport.request({
        method: 'get',
        path: `${path('locales', code)}/translations`,
        query: query.itemId === undefined ? {} : { itemId: query.itemId },
        schema: Translations,
        ...options,
      }),
    setTranslations: (code, body, options = {}) =>
      transport.request({
        method: 'put',
        path: `${path('locales', code)}/translations`,
        schema: Translations,
        json: body,
        ...options,
      }),
  };
}
