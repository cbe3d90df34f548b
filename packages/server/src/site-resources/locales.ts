import {
  type CreateLocaleBody,
  type ItemTranslation,
  type Locale,
  localeSetProblems,
  type Translations,
  TrellisError,
  type UpdateLocaleBody,
  type UpdateTranslationsBody,
  validateFields,
} from '@trelliscms/core';
import { CONTENT_LABEL, typeOfId } from '../content/item-record';
import { findType } from '../content/type-repository';
import type { Graph, GraphReader, GraphWriter } from '../engines/port';
import { checkPrecondition, type Precondition, valueTag } from '../shared/entity-tag';
import { internalNodeId, publicResourceId } from '../shared/internal-ids';
import { allNodes } from '../shared/node-pages';

/** Node label of a locale (`~locale:<code>`). */
export const LOCALE_LABEL = 'Locale';
/** Node label of a locale's UI strings (`~locale-strings:<code>`). */
export const LOCALE_STRINGS_LABEL = 'LocaleStrings';
/** Node label of one item's field values in one locale (`~item-translation:<code>:<item id>`). */
export const ITEM_TRANSLATION_LABEL = 'ItemTranslation';

const localeId = (code: string) => internalNodeId('locale', code);
const stringsId = (code: string) => internalNodeId('locale-strings', code);
const itemTranslationId = (code: string, itemId: string) =>
  internalNodeId('item-translation', `${code}:${itemId}`);

const byCode = (a: Locale, b: Locale) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
const notFound = (code: string) => TrellisError.of('not_found', { resource: `Locale \`${code}\`` });

/** Every locale of the site, by code. */
export async function listLocales(graph: GraphReader): Promise<Locale[]> {
  return (await allNodes(graph, { label: LOCALE_LABEL })).map((node) => node.props as Locale).sort(byCode);
}

/** One locale; 404 `not_found` when the site has none with this code. */
export async function getLocale(graph: GraphReader, code: string): Promise<Locale> {
  const node = await graph.getNode(localeId(code));
  if (!node?.labels.includes(LOCALE_LABEL)) throw notFound(code);
  return node.props as Locale;
}

function assertLocaleSet(locales: readonly Locale[]): void {
  const problems = localeSetProblems(locales);
  if (problems.length > 0) throw TrellisError.of('validation_failed', { detail: problems.join('; ') });
}

/**
 * Writes the locales whose props differ from `before` (in `tx`), each audited
 * `locales.<action>`; `changed` is the code the request named.
 */
async function writeLocales(params: {
  tx: GraphWriter;
  before: readonly Locale[];
  after: readonly Locale[];
  changed: string;
  action: 'create' | 'update';
  actor: string;
}): Promise<void> {
  const { tx, before, after, changed, action, actor } = params;
  const old = new Map(before.map((locale) => [locale.code, locale]));
  for (const locale of after) {
    const was = old.get(locale.code);
    if (was && valueTag(was) === valueTag(locale)) continue;
    if (was) await tx.updateNode(localeId(locale.code), { props: locale });
    else await tx.createNode({ id: localeId(locale.code), labels: [LOCALE_LABEL], props: locale });
    await tx.appendAudit({
      actor,
      action: locale.code === changed ? `locales.${action}` : 'locales.update',
      target: publicResourceId(localeId(locale.code)),
      ...(locale.code === changed ? {} : { data: { defaultMovedTo: changed } }),
    });
  }
}

/**
 * Adds a locale. The site's first locale is its default; a new `default: true` locale takes
 * the default from the one that had it. 409 `conflict` when the code exists; 400 when the
 * fallback names no locale or the fallbacks would form a cycle.
 */
export async function createLocale(params: {
  graph: Graph;
  body: CreateLocaleBody;
  actor: string;
  now: string;
}): Promise<Locale> {
  const { graph, body, actor, now } = params;
  return graph.transaction(async (tx) => {
    const before = await listLocales(tx);
    if (before.some((locale) => locale.code === body.code)) {
      throw TrellisError.of('conflict', {
        detail: `A locale \`${body.code}\` already exists; PATCH /api/locales/${body.code} changes it.`,
      });
    }
    const created: Locale = {
      ...body,
      default: body.default === true || before.length === 0,
      updatedAt: now,
    };
    if (created.fallback === null) delete created.fallback;
    const after = [
      ...before.map((locale) =>
        created.default && locale.default ? { ...locale, default: false, updatedAt: now } : locale,
      ),
      created,
    ];
    assertLocaleSet(after);
    await writeLocales({ tx, before, after, changed: created.code, action: 'create', actor });
    return created;
  });
}

/**
 * Changes a locale (the given keys replace the stored ones; `fallback: null` removes it).
 * `default: true` makes it the default (the previous default stops being one); a default
 * stops being one only by another locale becoming the default (400 otherwise).
 */
export async function updateLocale(params: {
  graph: Graph;
  code: string;
  patch: UpdateLocaleBody;
  precondition: Precondition | undefined;
  actor: string;
  now: string;
}): Promise<Locale> {
  const { graph, code, patch, precondition, actor, now } = params;
  return graph.transaction(async (tx) => {
    const before = await listLocales(tx);
    const current = before.find((locale) => locale.code === code);
    if (!current) throw notFound(code);
    checkPrecondition({ precondition, current: valueTag(current), resource: `locale ${code}` });
    if (current.default && patch.default === false) {
      throw TrellisError.of('validation_failed', {
        detail: `${code} is the default locale; make another locale the default (PATCH it with default: true) instead`,
      });
    }
    const merged: Locale = { ...current, ...patch, code, updatedAt: now };
    if (merged.fallback === null) delete merged.fallback;
    const after = before.map((locale) => {
      if (locale.code === code) return merged;
      return merged.default && locale.default ? { ...locale, default: false, updatedAt: now } : locale;
    });
    assertLocaleSet(after);
    await writeLocales({ tx, before, after, changed: code, action: 'update', actor });
    return merged;
  });
}

/**
 * Deletes a locale with its translations (UI strings and item field values). 409 `conflict`
 * for the default locale while other locales exist, and for a locale others fall back to.
 */
export async function deleteLocale(params: { graph: Graph; code: string; actor: string }): Promise<void> {
  const { graph, code, actor } = params;
  await graph.transaction(async (tx) => {
    const locales = await listLocales(tx);
    const current = locales.find((locale) => locale.code === code);
    if (!current) throw notFound(code);
    if (current.default && locales.length > 1) {
      throw TrellisError.of('conflict', {
        detail: `${code} is the default locale and cannot be deleted; make another locale the default first (PATCH /api/locales/{code} with default: true)`,
      });
    }
    const dependents = locales.filter((locale) => locale.fallback === code).map((locale) => locale.code);
    if (dependents.length > 0) {
      throw TrellisError.of('conflict', {
        detail: `${dependents.join(', ')} fall(s) back to ${code}; change their fallback first`,
      });
    }
    const translations = await allNodes(tx, {
      label: ITEM_TRANSLATION_LABEL,
      where: [{ prop: 'locale', op: 'eq', value: code }],
    });
    for (const node of translations) await tx.deleteNode(node.id);
    if (await tx.getNode(stringsId(code))) await tx.deleteNode(stringsId(code));
    await tx.deleteNode(localeId(code));
    await tx.appendAudit({
      actor,
      action: 'locales.delete',
      target: publicResourceId(localeId(code)),
      data: { itemTranslations: translations.length },
    });
  });
}

/** Deletes an item's field values in every locale (when the item is deleted). */
export async function deleteItemTranslations(tx: GraphWriter, itemId: string): Promise<void> {
  const nodes = await allNodes(tx, {
    label: ITEM_TRANSLATION_LABEL,
    where: [{ prop: 'itemId', op: 'eq', value: itemId }],
  });
  for (const node of nodes) await tx.deleteNode(node.id);
}

/** Every item's field values in every locale: item id → locale code → fields (for the snapshot). */
export async function itemTranslationsByItem(
  graph: GraphReader,
): Promise<Map<string, Record<string, Record<string, unknown>>>> {
  const out = new Map<string, Record<string, Record<string, unknown>>>();
  for (const node of await allNodes(graph, { label: ITEM_TRANSLATION_LABEL })) {
    const itemId = String(node.props.itemId);
    const byLocale = out.get(itemId) ?? {};
    byLocale[String(node.props.locale)] = (node.props.fields as Record<string, unknown>) ?? {};
    out.set(itemId, byLocale);
  }
  return out;
}

/** Every locale's UI strings (for the snapshot), by locale code. */
export async function listLocaleStrings(graph: GraphReader): Promise<Translations[]> {
  return (await allNodes(graph, { label: LOCALE_STRINGS_LABEL }))
    .map((node) => ({
      locale: String(node.props.locale),
      entries: (node.props.entries as Record<string, string>) ?? {},
      ...(typeof node.props.updatedAt === 'string' ? { updatedAt: node.props.updatedAt } : {}),
    }))
    .sort((a, b) => (a.locale < b.locale ? -1 : a.locale > b.locale ? 1 : 0));
}

/** A locale's stored translations: its UI strings and its item field values (only `itemId`'s with it). */
export async function readTranslations(params: {
  graph: GraphReader;
  code: string;
  itemId?: string;
}): Promise<Translations> {
  const { graph, code, itemId } = params;
  await getLocale(graph, code);
  const strings = await graph.getNode(stringsId(code));
  const where = [{ prop: 'locale', op: 'eq' as const, value: code }];
  if (itemId !== undefined) where.push({ prop: 'itemId', op: 'eq', value: itemId });
  const items: ItemTranslation[] = (await allNodes(graph, { label: ITEM_TRANSLATION_LABEL, where }))
    .map((node) => ({
      itemId: String(node.props.itemId),
      fields: (node.props.fields as Record<string, unknown>) ?? {},
      ...(typeof node.props.updatedAt === 'string' ? { updatedAt: node.props.updatedAt } : {}),
    }))
    .sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
  const updatedAt = [strings?.props.updatedAt, ...items.map((item) => item.updatedAt)]
    .filter((at): at is string => typeof at === 'string')
    .sort()
    .at(-1);
  return {
    locale: code,
    entries: (strings?.props.entries as Record<string, string> | undefined) ?? {},
    items,
    ...(updatedAt ? { updatedAt } : {}),
  };
}

/**
 * Merges UI strings and item field values into a locale's translations, in one transaction,
 * audited `locales.translations`. Each item must exist and each field be `translatable` on its
 * type, with a value its field type accepts; the default locale's field values are the items'
 * own fields, so it takes none (400). With `If-Match` (the ETag of the GET without `itemId`),
 * 409 `version_conflict` when the translations changed since.
 */
export async function writeTranslations(params: {
  graph: Graph;
  code: string;
  body: UpdateTranslationsBody;
  precondition: Precondition | undefined;
  actor: string;
  now: string;
}): Promise<Translations> {
  const { graph, code, body, precondition, actor, now } = params;
  return graph.transaction(async (tx) => {
    const locale = await getLocale(tx, code);
    const current = await readTranslations({ graph: tx, code });
    checkPrecondition({ precondition, current: valueTag(current), resource: `translations of ${code}` });
    if (locale.default && body.items.length > 0) {
      throw TrellisError.of('validation_failed', {
        detail: `${code} is the default locale: its field values are the items' own fields (write them with PUT /api/content/{type}/{id})`,
      });
    }
    const issues: string[] = [];
    const checked: Array<{ itemId: string; fields: Record<string, unknown> }> = [];
    for (const [index, entry] of body.items.entries()) {
      const item = await tx.getNode(entry.itemId);
      if (!item?.labels.includes(CONTENT_LABEL)) {
        issues.push(`body.items.${index}.itemId: no item \`${entry.itemId}\``);
        continue;
      }
      const type = await findType(tx, typeOfId(entry.itemId));
      const translatable = new Map(
        (type?.fields ?? [])
          .filter((field) => field.translatable === true)
          .map((field) => [field.name, field]),
      );
      const given = Object.keys(entry.fields);
      const unknown = given.filter((name) => !translatable.has(name));
      if (unknown.length > 0) {
        issues.push(
          `body.items.${index}.fields: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a translatable field of ${type?.name ?? typeOfId(entry.itemId)}`,
        );
        continue;
      }
      const values = Object.fromEntries(Object.entries(entry.fields).filter(([, value]) => value !== null));
      const validated = validateFields({
        type: {
          name: type!.name,
          fields: given.map((name) => ({ ...translatable.get(name)!, required: false })),
        },
        fields: values,
        applyDefaults: false,
      });
      for (const issue of validated.issues)
        issues.push(`body.items.${index}.fields.${issue.field}: ${issue.message}`);
      checked.push(entry);
    }
    if (issues.length > 0) throw TrellisError.of('validation_failed', { detail: issues.join('; ') });

    if (Object.keys(body.entries).length > 0 || body.replace) {
      const entries: Record<string, string> = body.replace ? {} : { ...current.entries };
      for (const [key, text] of Object.entries(body.entries)) {
        if (text === null) delete entries[key];
        else entries[key] = text;
      }
      const props = { locale: code, entries, updatedAt: now };
      if (await tx.getNode(stringsId(code))) await tx.updateNode(stringsId(code), { props });
      else await tx.createNode({ id: stringsId(code), labels: [LOCALE_STRINGS_LABEL], props });
    }
    const stored = new Map((current.items ?? []).map((item) => [item.itemId, item.fields]));
    for (const entry of checked) {
      const fields: Record<string, unknown> = body.replace ? {} : { ...(stored.get(entry.itemId) ?? {}) };
      for (const [name, value] of Object.entries(entry.fields)) {
        if (value === null) delete fields[name];
        else fields[name] = value;
      }
      const id = itemTranslationId(code, entry.itemId);
      const exists = stored.has(entry.itemId);
      if (Object.keys(fields).length === 0) {
        if (exists) await tx.deleteNode(id);
        continue;
      }
      const props = { locale: code, itemId: entry.itemId, fields, updatedAt: now };
      if (exists) await tx.updateNode(id, { props });
      else await tx.createNode({ id, labels: [ITEM_TRANSLATION_LABEL], props });
    }
    await tx.appendAudit({
      actor,
      action: 'locales.translations',
      target: publicResourceId(localeId(code)),
      data: { entries: Object.keys(body.entries).length, items: checked.map((entry) => entry.itemId) },
    });
    return readTranslations({ graph: tx, code });
  });
}
