import { z } from 'zod';
import { DateTime } from './common';

/**
 * Locales (`/api/locales`) are the languages a site publishes in. One locale is the
 * `default`; a locale may `fallback` to another for missing strings. Each locale has
 * translations (`/api/locales/{code}/translations`): a flat map from a message key (e.g.
 * `nav.home`) to its text, used by templates through the `t` filter
 * (`{{ 'nav.home' | t }}`).
 */
export const LocaleCode = z
  .string()
  .min(2)
  .max(35)
  .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a BCP 47 language tag such as en or pt-BR');

/** A locale (GET /api/locales/{code}). */
export const Locale = z
  .object({
    code: LocaleCode,
    name: z.string().min(1).max(100),
    default: z.boolean().default(false),
    fallback: LocaleCode.nullable().optional(),
    direction: z.enum(['ltr', 'rtl']).default('ltr'),
    enabled: z.boolean().default(true),
    updatedAt: DateTime.optional(),
  })
  .meta({
    id: 'Locale',
    description:
      'A language the site publishes in (BCP 47 code), with an optional fallback locale; its translations map message keys to text for the t filter.',
  });
export type Locale = z.infer<typeof Locale>;

/** GET /api/locales */
export const LocaleList = z.array(Locale).meta({ id: 'LocaleList' });
export type LocaleList = z.infer<typeof LocaleList>;

/** POST /api/locales */
export const CreateLocaleBody = Locale.omit({ updatedAt: true })
  .refine((locale) => locale.fallback !== locale.code, {
    message: 'a locale cannot fall back to itself',
    path: ['fallback'],
  })
  .meta({ id: 'CreateLocaleBody' });
export type CreateLocaleBody = z.infer<typeof CreateLocaleBody>;

/** PUT or PATCH /api/locales/{code}: the given keys replace the stored ones. */
export const UpdateLocaleBody = Locale.omit({ code: true, updatedAt: true })
  .partial()
  .meta({ id: 'UpdateLocaleBody' });
export type UpdateLocaleBody = z.infer<typeof UpdateLocaleBody>;

/** Path parameters of /api/locales/{code}. */
export const LocaleParams = z.object({ code: LocaleCode });
export type LocaleParams = z.infer<typeof LocaleParams>;

/** A message key: dot-separated identifiers such as `nav.home`. */
export const TranslationKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated names such as nav.home');

/** A field name of a content type (as in field definitions). */
const TranslatedFieldName = z.string().min(1).max(100);

/** One item's field values in one locale: only fields its type marks `translatable`. */
export const ItemTranslation = z
  .object({
    itemId: z.string().min(1).max(300),
    fields: z.record(TranslatedFieldName, z.unknown()),
    updatedAt: DateTime.optional(),
  })
  .meta({ id: 'ItemTranslation' });
export type ItemTranslation = z.infer<typeof ItemTranslation>;

/**
 * GET /api/locales/{code}/translations: the locale's UI strings (`entries`, for the `t`
 * filter) and its per-item field values (`items`, sorted by item id). Stored values only:
 * what a missing value falls back to is decided by the build (docs/locales.md).
 */
export const Translations = z
  .object({
    locale: LocaleCode,
    entries: z.record(TranslationKey, z.string().max(10_000)),
    items: z.array(ItemTranslation).optional(),
    updatedAt: DateTime.optional(),
  })
  .meta({ id: 'Translations' });
export type Translations = z.infer<typeof Translations>;

/** Query of GET /api/locales/{code}/translations: `itemId` keeps only that item's values. */
export const TranslationsQuery = z.object({
  itemId: z.string().min(1).max(300).optional(),
});
export type TranslationsQuery = z.infer<typeof TranslationsQuery>;

/**
 * PUT /api/locales/{code}/translations: merges `entries` (UI strings) and each item's `fields`
 * into the stored ones (a null value deletes its key or field); with `replace: true` the
 * stored UI strings are replaced as a whole, and so are the fields of each item named.
 */
export const UpdateTranslationsBody = z
  .object({
    entries: z.record(TranslationKey, z.string().max(10_000).nullable()).default({}),
    items: z
      .array(
        z.object({
          itemId: z.string().min(1).max(300),
          fields: z.record(TranslatedFieldName, z.unknown()),
        }),
      )
      .max(1000)
      .default([]),
    replace: z.boolean().default(false),
  })
  .meta({ id: 'UpdateTranslationsBody' });
export type UpdateTranslationsBody = z.infer<typeof UpdateTranslationsBody>;
