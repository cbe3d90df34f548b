import { hash } from 'node:crypto';
import type { ArtifactDeps } from '@trelliscms/core/build';
import type { Liquid, Template } from 'liquidjs';
import { createLiquid, type LiquidLimits, SafeHtml } from '../liquid/create-liquid';
import { absoluteUrl, type UrlSettings } from '../liquid/filters';
import { hreflangLinks, type PageAlternate } from '../liquid/locale-tags';
import { templateClosure } from '../liquid/memory-fs';
import { RenderMemo, registerMemoRender } from '../liquid/render-memo';
import {
  fragmentTemplates,
  widgetAreaHashes,
  widgetAreaKey,
  widgetAreas,
  widgetTemplateName,
} from '../liquid/site-fragments';
import type { ReaderSlot } from '../liquid/tags';
import { findUndefinedVariables, type UndefinedVariable } from '../liquid/undefined-variables';
import { widgetAreasObject } from '../liquid/widget-areas';
import { type ArtifactSpec, paginateQuery } from '../plan/plan-artifacts';
import { itemIdOfUrlKey } from '../plan/site-locales';
import type { ScriptRunner } from '../sandbox/script-runner';
import type { StoreReader } from '../snapshot/shared-store';
import type {
  Snapshot,
  SnapshotItem,
  SnapshotScript,
  SnapshotTransform,
  SnapshotView,
  SnapshotWidget,
} from '../snapshot/types';
import { type ItemView, viewValue } from '../source/field-deps';
import { SiteCollections } from '../source/site-collections';
import { type SharedList, SnapshotSource } from '../source/snapshot-source';
import { TrackingReader } from '../source/tracking-reader';
import { seoHead, viewSeo } from './seo-head';

/** The outcome of rendering one artifact (a member added here is copied by render-worker.ts's `withoutPage` too). */
export interface RenderedArtifact {
  key: string;
  file: string;
  /** the page; absent when the render failed */
  html?: string;
  bytes: number;
  /** sha256 of the page's bytes (base64url) */
  hash: string;
  deps: ArtifactDeps;
  error?: string;
  template?: string;
  /** variables the page's templates read that had no value (only with `limits.reportUndefined`) */
  undefinedVariables?: UndefinedVariable[];
  /** the page's UTF-8 bytes (only with `encodePages`; what `bytes` and `hash` were taken from) */
  page?: Uint8Array;
}

export interface RendererOptions {
  /** the (transformed) snapshot */
  snapshot: Snapshot;
  env: string;
  /** item id → page path, from the plan */
  urls: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  limits?: LiquidLimits;
  /** largest page in bytes; default 16 MB */
  maxPageBytes?: number;
  mediaBaseUrl?: string | null;
  /** runs `afterRender` script transforms (see `loadScriptRunner`); needed when the snapshot has some */
  runScript?: ScriptRunner;
  /** also give each page as UTF-8 bytes (`page`), encoded once for its size, hash and the trip to the build's thread */
  encodePages?: boolean;
  /**
   * with `encodePages`, where a page's bytes are written (a render worker's chunk buffer, so no
   * buffer is allocated per page): gives them; they stay valid until the caller reuses the space
   */
  encodePage?: (html: string) => Uint8Array;
  /** sorted lists of a source over the same snapshot and environment (the build's planning), not sorted again here */
  lists?: readonly SharedList[];
  /** the items and edges in shared memory (a render worker's; `snapshot` has none then) */
  store?: StoreReader;
}

/** The fixed page of an item that is not published in the environment being built. */
export const STUB_PAGE =
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Not published</title></head>' +
  '<body><main><h1>Not published</h1><p>This page is not published in this environment.</p></main></body></html>\n';

/** The page of a redirect route: a meta refresh and a canonical link to the target. */
export function redirectPage(target: string): string {
  const url = target.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Redirecting</title><link rel="canonical" href="${url}"><meta http-equiv="refresh" content="0; url=${url}"><meta name="robots" content="noindex"></head><body><p><a href="${url}">${url}</a></p></body></html>\n`;
}

/** Words in a template that may read the clock or chance (`'now'`, `'today'`, `sample`, `shuffle`): its partials are not memoized. */
const IMPURE = /\b(now|today|sample|shuffle|random)\b/;

const encoder = new TextEncoder();

/** sha256 (base64url) of a string's UTF-8 bytes. */
export function hashText(text: string): string {
  return hash('sha256', text, 'base64url');
}

/**
 * Renders planned artifacts from a snapshot, one at a time, recording what each read. Never
 * throws for a template problem: the artifact comes back with `error`.
 */
export class Renderer {
  private readonly source: SnapshotSource;
  private readonly urls: Map<string, string>;
  private readonly reader: TrackingReader;
  private readonly liquid: Liquid;
  private readonly slot: ReaderSlot;
  private readonly templates: Map<string, string>;
  private readonly templateHashes = new Map<string, string>();
  private readonly parsed = new Map<string, Template[] | Error>();
  private readonly closures = new Map<string, Record<string, string>>();
  private readonly site: Record<string, unknown>;
  private readonly env: string;
  private readonly maxPageBytes: number;
  private readonly encodePages: boolean;
  private readonly encodePage: (html: string) => Uint8Array;
  private readonly afterRender: SnapshotTransform[];
  private readonly scripts: Map<string, SnapshotScript>;
  private readonly runScript: ScriptRunner | undefined;
  private readonly urlSettings: UrlSettings;
  private readonly collections: SiteCollections;
  private readonly reportUndefined: boolean;
  private readonly areas: Map<string, SnapshotWidget[]>;
  private readonly publicUrl: string | null;
  /** widget areas being rendered (a widget that shows its own area would never end) */
  private readonly rendering = new Set<string>();
  /** memoized `{% render %}` outputs, for the current snapshot (none in validate builds' strict pass) */
  private readonly memo: RenderMemo | null = null;
  private readonly pure = new Map<string, boolean>();

  constructor(options: RendererOptions) {
    this.afterRender = afterRenderTransforms(options.snapshot);
    this.scripts = new Map((options.snapshot.scripts ?? []).map((script) => [script.name, script]));
    this.runScript = options.runScript;
    this.env = options.env;
    this.maxPageBytes = options.maxPageBytes ?? 16 * 1024 * 1024;
    this.encodePages = options.encodePages === true;
    this.encodePage = options.encodePage ?? ((html) => encoder.encode(html));
    this.source = new SnapshotSource({ snapshot: options.snapshot, env: options.env, store: options.store });
    if (options.lists) this.source.seedLists(options.lists);
    // a copy: `update` changes it
    this.urls = options.urls instanceof Map ? new Map(options.urls) : new Map(Object.entries(options.urls));
    this.reader = new TrackingReader({ source: this.source, urls: this.urls });
    this.templates = new Map(
      options.snapshot.templates.filter((t) => t.enabled !== false).map((t) => [t.name, t.content]),
    );
    for (const [name, content] of fragmentTemplates(options.snapshot)) this.templates.set(name, content);
    for (const [name, content] of this.templates) this.templateHashes.set(name, hashText(content));
    this.urlSettings = {
      publicUrl: options.snapshot.site.publicUrl ?? null,
      mediaBaseUrl: options.mediaBaseUrl ?? null,
      assets: new Map((options.snapshot.assets ?? []).map((asset) => [asset.id, asset.url])),
    };
    for (const [key, hash] of widgetAreaHashes(options.snapshot)) this.templateHashes.set(key, hash);
    this.areas = widgetAreas(options.snapshot);
    this.publicUrl = options.snapshot.site.publicUrl ?? null;
    const { liquid, slot } = createLiquid({
      templates: this.templates,
      urls: this.urlSettings,
      limits: options.limits,
    });
    this.liquid = liquid;
    this.slot = slot;
    this.reportUndefined = options.limits?.reportUndefined === true;
    // The strict pass that looks for undefined variables renders every partial: no memo then.
    if (!this.reportUndefined) {
      this.memo = new RenderMemo((name) => this.isPure(name));
      slot.memo = this.memo;
      registerMemoRender(liquid, slot);
    }
    this.collections = new SiteCollections({ definitions: options.snapshot.site.collections ?? {} });
    this.site = {
      ...options.snapshot.site,
      url: options.snapshot.site.publicUrl ?? null,
      collections: this.collections.scope(this.reader),
    };
    this.memo?.markStable(this.site);
  }

  /** Whether a partial's output depends only on its arguments and the content: nothing in it (or what it includes) reads the clock or chance. */
  private isPure(name: string): boolean {
    let pure = this.pure.get(name);
    if (pure === undefined) {
      pure = templateClosure(name, this.templates).every(
        (member) => !IMPURE.test(this.templates.get(member) ?? ''),
      );
      this.pure.set(name, pure);
    }
    return pure;
  }

  /**
   * Moves the renderer to the next build's snapshot, which differs from the current one only in
   * its items (`items` replaced or added, `removed` gone) and their URLs (`urls`: the paths that
   * changed, null for an item without a page now). Keeps the parsed templates and whatever of
   * the content indexes the changed items leave valid; renders exactly as a new renderer would.
   */
  update(params: {
    snapshot: Snapshot;
    items: readonly SnapshotItem[];
    removed: readonly string[];
    urls: Readonly<Record<string, string | null>>;
  }): void {
    for (const id in params.urls) {
      const url = params.urls[id];
      // a localized page's URL (`<id>@<locale>`) is part of its item's view and dependency hash
      const item = this.source.item(itemIdOfUrlKey(id));
      if (item) this.reader.forget(item);
      if (url === null || url === undefined) this.urls.delete(id);
      else this.urls.set(id, url);
    }
    this.source.update(params.snapshot, params.items, params.removed);
    this.collections.clear();
    this.memo?.clear();
  }

  /** Builds the content indexes ahead of the first render (see `SnapshotSource.prepare`). */
  prepare(): void {
    this.source.prepare();
  }

  /** Hashes of a template and everything it includes, renders or extends (`''` for a missing one). */
  templateDeps(name: string): Record<string, string> {
    let deps = this.closures.get(name);
    if (!deps) {
      deps = {};
      for (const member of templateClosure(name, this.templates))
        deps[member] = this.templateHashes.get(member) ?? '';
      this.closures.set(name, deps);
    }
    return deps;
  }

  private parse(name: string): Template[] | Error {
    let parsed = this.parsed.get(name);
    if (!parsed) {
      try {
        parsed = this.liquid.parseFileSync(name);
      } catch (error) {
        parsed = error instanceof Error ? error : new Error(String(error));
      }
      this.parsed.set(name, parsed);
    }
    return parsed;
  }

  /** Renders one artifact. */
  render(spec: ArtifactSpec): RenderedArtifact {
    const reader = this.reader;
    reader.begin(spec.locale ?? null);
    if (spec.kind === 'item' && spec.stub) {
      reader.deps.items[spec.itemId] = '';
      return this.finish(spec, STUB_PAGE, reader.deps);
    }
    if (spec.kind === 'route' && spec.route.kind === 'redirect') {
      return this.finish(spec, redirectPage(String(spec.route.redirectTo)), reader.deps);
    }
    reader.deps.templates = { ...this.templateDeps(spec.template) };
    const templates = this.parse(spec.template);
    if (templates instanceof Error) return this.fail(spec, templates, reader.deps);
    this.slot.reader = reader;
    this.slot.template = spec.template;
    this.slot.fragment = (name) => Object.assign(reader.deps.templates, this.templateDeps(name));
    let seo: ReturnType<typeof viewSeo> = null;
    try {
      const scope: Record<string, unknown> = { site: this.site, env: this.env };
      const localized = this.localeScope(spec);
      scope.widgets = widgetAreasObject((area) => this.renderArea(area, scope, reader));
      if (spec.kind === 'item') {
        const item = reader.item(spec.itemId);
        // the page's alternates (hreflang) are its item's URLs in every locale: read as `url` is
        if (item) viewValue(item, 'url');
        scope.item = item;
        scope.page = { url: spec.path, path: spec.path, kind: 'item', title: titleOf(item), ...localized };
      } else {
        const route = spec.route;
        scope.route = { ...route, data: route.data ?? {} };
        seo = viewSeo(route as SnapshotView, spec, this.publicUrl);
        scope.page = {
          url: spec.path,
          path: spec.path,
          kind: 'route',
          title: seo?.title ?? route.title ?? null,
          ...localized,
          ...(seo ? { seo } : {}),
        };
        if (route.contentId) scope.item = reader.item(route.contentId);
        if (route.paginate) {
          const size = Math.max(1, Math.trunc(route.paginate.size ?? 10));
          const result = reader.list({
            ...paginateQuery(route.paginate, spec.term),
            limit: size,
            offset: (spec.page - 1) * size,
          });
          const base = spec.page === 1 ? spec.path : spec.path.replace(/page\/\d+\/$/, '');
          const href = (n: number) => (n === 1 ? base : `${base}page/${n}/`);
          // every page's URL, made when a template reads them (a million-item archive has
          // 50,000 pages: made for each of its pages, they were most of the page's time)
          let hrefs: string[] | undefined;
          scope.pagination = {
            items: result.items,
            total: result.total,
            size,
            page: spec.page,
            pages: spec.pages,
            previous: spec.page > 1 ? href(spec.page - 1) : null,
            next: spec.page < spec.pages ? href(spec.page + 1) : null,
            get hrefs() {
              hrefs ??= Array.from({ length: spec.pages }, (_, i) => href(i + 1));
              return hrefs;
            },
            // a listing paginated by a field: the value these pages list, and its URL segment
            ...(spec.term ? { value: spec.term.value, slug: spec.term.slug } : {}),
          };
        }
      }
      let html = String(this.liquid.renderSync(templates, scope));
      if (seo) html = seoHead(html, seo);
      if (spec.kind === 'item') html = this.applyAfterRender(spec.itemId, scope, html);
      if (html.length > this.maxPageBytes) {
        return this.fail(spec, new Error(`the page is larger than ${this.maxPageBytes} bytes`), reader.deps);
      }
      const rendered = this.finish(spec, html, reader.deps);
      if (this.reportUndefined) {
        // a second, strict pass that only looks for variables without a value (validate builds)
        const found = findUndefinedVariables({
          liquid: this.liquid,
          templates,
          scope,
          template: spec.template,
        });
        if (found.length > 0) rendered.undefinedVariables = found;
      }
      return rendered;
    } catch (error) {
      return this.fail(spec, error, reader.deps);
    } finally {
      this.slot.reader = null;
      this.slot.template = null;
      this.slot.fragment = null;
    }
  }

  /**
   * Runs the `afterRender` transforms of the item's type on its rendered page, in order: each
   * gives the page's new HTML. `set-field` (field `html`) and `template` render with the page's
   * scope and `html` (the page so far; `{{ html | raw }}` keeps it); `script` gets `{event, item,
   * page: {path, html}, site}` and returns `{html}` (or nothing to leave the page). A transform
   * that fails fails the page, naming the transform.
   */
  private applyAfterRender(itemId: string, scope: Record<string, unknown>, rendered: string): string {
    if (this.afterRender.length === 0) return rendered;
    const item = this.source.item(itemId);
    if (!item) return rendered;
    let html = rendered;
    for (const transform of this.afterRender) {
      if (transform.type && transform.type !== item.type) continue;
      // the transform sees the page and the whole item
      this.reader.readAll(item);
      const name = transform.name ?? transform.id;
      const fail = (message: string) => new Error(`afterRender transform "${name}": ${message}`);
      if (transform.kind === 'script') {
        const script = this.scripts.get(transform.script ?? '');
        if (!script || script.enabled === false)
          throw fail(`the script "${transform.script}" does not exist or is disabled`);
        if (!this.runScript) throw fail('script transforms need the script sandbox');
        const page = scope.page as { path: string };
        const outcome = this.runScript({
          name: script.name,
          source: script.source,
          input: {
            event: 'afterRender',
            item: { id: item.id, type: item.type, fields: item.fields },
            page: { path: page.path, html },
            site: this.site,
          },
          timeoutMs: script.timeoutMs,
          memoryMb: script.memoryMb,
        });
        if (outcome.status !== 'ok') throw fail(outcome.message);
        const value = outcome.value as { html?: unknown } | null;
        if (value === null) continue;
        if (typeof value !== 'object' || typeof value.html !== 'string') {
          throw fail(`script "${script.name}" returned neither {html} nor nothing`);
        }
        html = value.html;
        continue;
      }
      if (transform.kind === 'set-field' && transform.field !== 'html') {
        throw fail('an afterRender transform changes the page: its field must be `html`');
      }
      const parsed =
        transform.kind === 'set-field'
          ? this.liquid.parse(String(transform.value ?? ''))
          : transform.kind === 'template'
            ? this.parse(String(transform.template ?? ''))
            : fail(`unknown transform kind "${transform.kind}"`);
      if (parsed instanceof Error) throw parsed;
      html = String(this.liquid.renderSync(parsed, { ...scope, html }));
    }
    return html;
  }

  /**
   * What a page knows of its locale: `locale` (the page's, else the site's default; null on a
   * site without locales), `alternates` (the page in each locale, for `hreflang`) and
   * `hreflang` (those links as HTML, for `{{ page.hreflang | raw }}`, like `{% hreflang %}`).
   */
  private localeScope(spec: ArtifactSpec): Record<string, unknown> {
    const locales = this.reader.locales;
    const alternates: PageAlternate[] = (spec.alternates ?? []).map((alt) => ({
      locale: alt.locale,
      url: alt.path,
      href: absoluteUrl(alt.path, this.urlSettings),
      current: alt.locale === spec.locale,
    }));
    return {
      locale: spec.locale ?? locales.defaultCode,
      alternates,
      hreflang: hreflangLinks(alternates, locales.defaultCode),
    };
  }

  /**
   * The HTML of a widget area for the page being rendered: each enabled widget of the area in
   * order, its template rendered with the page's variables and `widget` (its name, label, area
   * and settings). Records the area and each widget's template as dependencies of the page.
   */
  private renderArea(area: string, scope: Record<string, unknown>, reader: TrackingReader): SafeHtml {
    const key = widgetAreaKey(area);
    reader.deps.templates[key] = this.templateHashes.get(key) ?? '';
    if (this.rendering.has(area)) throw new Error(`widget area ${area} is shown inside itself`);
    this.rendering.add(area);
    try {
      return this.renderWidgets(area, scope, reader);
    } finally {
      this.rendering.delete(area);
    }
  }

  private renderWidgets(area: string, scope: Record<string, unknown>, reader: TrackingReader): SafeHtml {
    const parts: string[] = [];
    for (const widget of this.areas.get(area) ?? []) {
      const name = widgetTemplateName(widget.name);
      Object.assign(reader.deps.templates, this.templateDeps(name));
      const templates = this.parse(name);
      const fail = (error: unknown) =>
        new Error(
          `widget "${widget.name}" (area ${area}): ${error instanceof Error ? error.message : String(error)}`,
        );
      if (templates instanceof Error) throw fail(templates);
      const view = {
        name: widget.name,
        label: widget.label ?? widget.name,
        area,
        order: widget.order ?? 0,
        settings: widget.settings ?? {},
      };
      try {
        parts.push(String(this.liquid.renderSync(templates, { ...scope, widget: view })));
      } catch (error) {
        throw fail(error);
      }
    }
    return new SafeHtml(parts.join('\n'));
  }

  /** The page's dependencies with the items it read through their views. */
  private collect(recorded: ArtifactDeps): ArtifactDeps {
    return recorded === this.reader.deps ? this.reader.collect() : recorded;
  }

  private finish(spec: ArtifactSpec, html: string, recorded: ArtifactDeps): RenderedArtifact {
    const deps = this.collect(recorded);
    if (this.encodePages) {
      const page = this.encodePage(html);
      return {
        key: spec.key,
        file: spec.file,
        html,
        bytes: page.length,
        hash: hash('sha256', page, 'base64url'),
        deps,
        page,
      };
    }
    return {
      key: spec.key,
      file: spec.file,
      html,
      bytes: Buffer.byteLength(html),
      hash: hashText(html),
      deps,
    };
  }

  private fail(spec: ArtifactSpec, error: unknown, recorded: ArtifactDeps): RenderedArtifact {
    const deps = this.collect(recorded);
    const message = error instanceof Error ? error.message : String(error);
    return {
      key: spec.key,
      file: spec.file,
      bytes: 0,
      hash: '',
      deps,
      error: message,
      template: spec.kind === 'item' && spec.stub ? undefined : spec.template,
    };
  }
}

function titleOf(item: ItemView | null): string | null {
  if (!item) return null;
  for (const key of ['title', 'name', 'label', 'slug']) {
    // read as a template reads it: the page records the keys its title came from
    const value = viewValue(item, key);
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/** The enabled `afterRender` transforms of a snapshot (and scripts bound to it), by `order` then id. */
export function afterRenderTransforms(snapshot: Snapshot): SnapshotTransform[] {
  const bound: SnapshotTransform[] = (snapshot.scripts ?? [])
    .filter((script) => script.event === 'afterRender')
    .map((script) => ({
      id: `script-${script.name}`,
      name: `script ${script.name}`,
      kind: 'script',
      script: script.name,
      event: 'afterRender',
      type: script.type ?? null,
      enabled: script.enabled,
      order: 0,
    }));
  return [...(snapshot.transforms ?? []), ...bound]
    .filter((t) => t.enabled !== false && t.event === 'afterRender')
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Whether rendering a snapshot's pages runs scripts (`afterRender` script transforms). */
export function rendersScripts(snapshot: Snapshot): boolean {
  return afterRenderTransforms(snapshot).some((transform) => transform.kind === 'script');
}
