import type { Locale, Translations } from '@trelliscms/core';
import { ExitCode, UsageError } from '../../errors';
import { table } from '../../io/output';
import { parseJsonObject, readJsonFile } from '../../io/read-json-file';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

const rows = (locales: Locale[]) =>
  table(
    locales.map((locale) => ({
      ...locale,
      fallback: locale.fallback ?? '',
      default: locale.default ? 'yes' : '',
    })),
    ['code', 'name', 'default', 'fallback', 'enabled'],
  );

/** `cms locales list`: the site's locales, the default marked. */
export async function localesList({ site, out }: Deps): Promise<number> {
  const locales = await site.locales.list();
  out.result(locales, () => (locales.length === 0 ? 'The site has no locales.' : rows(locales)));
  return ExitCode.ok;
}

/** `cms locales add <code> <name>`: the site's first locale (or one with --default) is the default. */
export async function localesAdd({
  site,
  out,
  code,
  name,
  fallback,
  isDefault,
  direction,
}: Deps & {
  code: string;
  name: string;
  fallback?: string;
  isDefault?: boolean;
  direction?: 'ltr' | 'rtl';
}): Promise<number> {
  const locale = await site.locales.create({
    code,
    name,
    ...(fallback ? { fallback } : {}),
    ...(isDefault ? { default: true } : {}),
    ...(direction ? { direction } : {}),
  });
  out.result(locale, () => [`Added ${locale.code}${locale.default ? ' (default)' : ''}.`, ...rows([locale])]);
  return ExitCode.ok;
}

/** `cms locales set-default <code>`: the previous default stops being one. */
export async function localesSetDefault({ site, out, code }: Deps & { code: string }): Promise<number> {
  const locale = await site.locales.setDefault(code);
  out.result(locale, () => `${locale.code} is the default locale.`);
  return ExitCode.ok;
}

/** `cms locales rm <code>`: deletes a locale with its translations (not the default while others exist). */
export async function localesRemove({ site, out, code }: Deps & { code: string }): Promise<number> {
  await site.locales.delete(code);
  out.result({ ok: true, code }, () => `Deleted ${code} and its translations.`);
  return ExitCode.ok;
}

function translationLines(translations: Translations): string[] {
  const lines = [`Locale ${translations.locale}`];
  const keys = Object.keys(translations.entries).sort();
  lines.push(keys.length === 0 ? 'No UI strings.' : 'UI strings:');
  for (const key of keys) lines.push(`  ${key} = ${translations.entries[key]}`);
  const items = translations.items ?? [];
  lines.push(items.length === 0 ? 'No item translations.' : 'Items:');
  for (const item of items) lines.push(`  ${item.itemId} ${JSON.stringify(item.fields)}`);
  return lines;
}

/** `cms locales translations get <code> [--item <id>]`: stored UI strings and item field values. */
export async function translationsGet({
  site,
  out,
  code,
  itemId,
}: Deps & { code: string; itemId?: string }): Promise<number> {
  const translations = await site.locales.translations(code, itemId ? { itemId } : {});
  out.result(translations, () => translationLines(translations));
  return ExitCode.ok;
}

/**
 * `cms locales translations set <code>`: UI strings from `key=text` pairs (`key=` deletes),
 * one item's fields with `--item <id> --fields '<json>'`, or a whole body from `--file`.
 */
export async function translationsSet({
  site,
  out,
  io,
  code,
  pairs,
  itemId,
  fields,
  file,
  replace,
}: Pick<SiteCommandDeps, 'site' | 'out' | 'io'> & {
  code: string;
  pairs: string[];
  itemId?: string;
  fields?: string;
  file?: string;
  replace?: boolean;
}): Promise<number> {
  if ((itemId === undefined) !== (fields === undefined)) {
    throw new UsageError(
      'Give an item\'s values as --item post:hello --fields \'{"title":"Bonjour"}\' (both).',
    );
  }
  let body: Record<string, unknown> = {};
  if (file !== undefined) {
    const value = await readJsonFile(io.fs, io.cwd, file);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError(`${file} must hold one JSON object: {"entries": {...}, "items": [...]}`);
    }
    body = value as Record<string, unknown>;
  }
  const entries: Record<string, string | null> = {
    ...((body.entries as Record<string, string | null>) ?? {}),
  };
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new UsageError(`"${pair}" is not key=text (e.g. nav.home=Accueil; nav.home= deletes it)`);
    const text = pair.slice(at + 1);
    entries[pair.slice(0, at)] = text === '' ? null : text;
  }
  const items = [...((body.items as Array<{ itemId: string; fields: Record<string, unknown> }>) ?? [])];
  if (itemId !== undefined) items.push({ itemId, fields: parseJsonObject(fields!, '--fields') });
  if (Object.keys(entries).length === 0 && items.length === 0 && !replace) {
    throw new UsageError('Nothing to set: give key=text pairs, --item with --fields, or --file.');
  }
  const saved = await site.locales.setTranslations(code, {
    entries,
    items,
    ...(replace || body.replace === true ? { replace: true } : {}),
  });
  out.result(saved, () => [`Saved the translations of ${code}.`, ...translationLines(saved)]);
  return ExitCode.ok;
}
