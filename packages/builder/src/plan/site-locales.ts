import { createHash } from 'node:crypto';
import {
  canonicalJson,
  defaultLocaleOf,
  localeChain,
  localizedFields,
  publishedLocales,
  translateKey,
} from '@trelliscms/core/build';
import type { Snapshot, SnapshotItem, SnapshotLocale } from '../snapshot/types';

/** One other-language version of a page: its locale and its path. */
export interface Alternate {
  locale: string;
  path: string;
}

/** The dependency name under which a page records the UI strings of a locale it read (`t` filter). */
export function stringsDepName(code: string): string {
  return `~strings:${code}`;
}

/**
 * The locales of a snapshot as a build reads them: the published ones (enabled, the default
 * first), each one's fallback chain, the translatable fields of each type, each locale's UI
 * strings with fallback applied and their hash. Made once per snapshot object ({@link siteLocalesOf}).
 */
export class SiteLocales {
  /** the published locales, the default first (empty: the site is not localized) */
  readonly locales: SnapshotLocale[];
  readonly codes: string[];
  readonly defaultCode: string | null;
  private readonly chains = new Map<string, string[]>();
  private readonly translatable = new Map<string, string[]>();
  private readonly entries = new Map<string, Readonly<Record<string, string>>>();
  private readonly stringHashes = new Map<string, string>();
  private readonly localized = new WeakMap<SnapshotItem, Map<string, SnapshotItem>>();

  constructor(snapshot: Pick<Snapshot, 'locales' | 'translations' | 'types'>) {
    const all = snapshot.locales ?? [];
    this.locales = publishedLocales(all);
    this.codes = this.locales.map((locale) => locale.code);
    this.defaultCode = defaultLocaleOf(all)?.code ?? null;
    for (const code of this.codes) this.chains.set(code, localeChain(all, code));
    for (const type of snapshot.types) {
      const names = type.fields.filter((field) => field.translatable === true).map((field) => field.name);
      if (names.length > 0) this.translatable.set(type.name, names);
    }
    for (const strings of snapshot.translations ?? [])
      this.entries.set(strings.locale, strings.entries ?? {});
  }

  /** Whether the site has locales. */
  get isLocalized(): boolean {
    return this.codes.length > 0;
  }

  /** A locale's chain: itself, its fallbacks, the default. */
  chain(code: string): string[] {
    return this.chains.get(code) ?? (this.defaultCode ? [code, this.defaultCode] : [code]);
  }

  /** An item in a locale: its translatable fields resolved along the locale's chain (memoized per item object). */
  localize(item: SnapshotItem, code: string | null): SnapshotItem {
    if (code === null || code === this.defaultCode || !item.translations) return item;
    const names = this.translatable.get(item.type);
    if (!names) return item;
    let byCode = this.localized.get(item);
    if (!byCode) {
      byCode = new Map();
      this.localized.set(item, byCode);
    }
    let out = byCode.get(code);
    if (!out) {
      const fields = localizedFields({
        fields: item.fields,
        translations: item.translations,
        translatable: names,
        chain: this.chain(code),
        defaultCode: this.defaultCode,
      });
      out = fields === item.fields ? item : { ...item, fields };
      byCode.set(code, out);
    }
    return out;
  }

  /** A UI string in a locale, with fallback along its chain; null when no locale has it. */
  translate(key: string, code: string): string | null {
    return translateKey(key, this.chain(code), this.entries);
  }

  /** The hash of everything `translate` can answer for a locale (its chain's strings, in order). */
  stringsHash(code: string): string {
    let hash = this.stringHashes.get(code);
    if (hash === undefined) {
      const chain = this.chain(code);
      hash = createHash('sha256')
        .update(canonicalJson(chain.map((c) => [c, this.entries.get(c) ?? {}])))
        .digest('base64url');
      this.stringHashes.set(code, hash);
    }
    return hash;
  }
}

const memo = new WeakMap<object, SiteLocales>();

/** The {@link SiteLocales} of a snapshot (memoized per snapshot object). */
export function siteLocalesOf(snapshot: Pick<Snapshot, 'locales' | 'translations' | 'types'>): SiteLocales {
  let locales = memo.get(snapshot);
  if (!locales) {
    locales = new SiteLocales(snapshot);
    memo.set(snapshot, locales);
  }
  return locales;
}

/** The page key of an item in a locale: `item:<id>@<code>`. */
export function localizedItemKey(itemId: string, code: string): string {
  return `item:${itemId}@${code}`;
}

/** The item id of a page key `item:<id>` or `item:<id>@<locale>`. */
export function itemIdOfKey(key: string): string {
  return itemIdOfUrlKey(key.slice('item:'.length));
}

/** The item id of a key of the plan's URL map: `<id>` or `<id>@<locale>` ({@link localizedUrlKey}). */
export function itemIdOfUrlKey(key: string): string {
  const at = key.lastIndexOf('@');
  return at > 0 && /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(key.slice(at + 1)) ? key.slice(0, at) : key;
}

/**
 * The key of an item's page URLs in the plan's URL map: `<id>` holds the URL of its page (the
 * default locale's, for a localized type) and `<id>@<code>` the URL of its page in each locale.
 */
export function localizedUrlKey(itemId: string, code: string): string {
  return `${itemId}@${code}`;
}

/**
 * Everything about an item's URLs that a page reading it may show: its URL, then, on a
 * localized site, its URL in each locale. What item dependency hashes hold.
 */
export function urlKeyOf(urls: ReadonlyMap<string, string>, id: string, codes: readonly string[]): string {
  let key = urls.get(id) ?? '';
  for (const code of codes) key += `|${urls.get(`${id}@${code}`) ?? ''}`;
  return key;
}
