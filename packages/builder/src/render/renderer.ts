import { hash } from 'node:crypto';
import type { ArtifactDeps } from '@trelliscms/core/build';
import type { Liquid, Template } from 'liquidjs';
import { createLiquid, type LiquidLimits } from '../liquid/create-liquid';
import { templateClosure } from '../liquid/memory-fs';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import { SnapshotSource } from '../source/snapshot-source';
import { TrackingReader } from '../source/tracking-reader';
import { parseSort, parseWhere } from '../source/where';

/** The outcome of rendering one artifact. */
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
  private readonly slot: { reader: TrackingReader | null };
  private readonly templates: Map<string, string>;
  private readonly templateHashes = new Map<string, string>();
  private readonly parsed = new Map<string, Template[] | Error>();
  private readonly closures = new Map<string, Record<string, string>>();
  private readonly site: Record<string, unknown>;
  private readonly env: string;
  private readonly maxPageBytes: number;

  constructor(options: RendererOptions) {
    this.env = options.env;
    this.maxPageBytes = options.maxPageBytes ?? 16 * 1024 * 1024;
    this.source = new SnapshotSource({ snapshot: options.snapshot, env: options.env });
    // a copy: `update` changes it
    this.urls = options.urls instanceof Map ? new Map(options.urls) : new Map(Object.entries(options.urls));
    this.reader = new TrackingReader({ source: this.source, urls: this.urls });
    this.templates = new Map(
      options.snapshot.templates.filter((t) => t.enabled !== false).map((t) => [t.name, t.content]),
    );
    for (const [name, content] of this.templates) this.templateHashes.set(name, hashText(content));
    const { liquid, slot } = createLiquid({
      templates: this.templates,
      urls: {
        publicUrl: options.snapshot.site.publicUrl ?? null,
        mediaBaseUrl: options.mediaBaseUrl ?? null,
        assets: new Map((options.snapshot.assets ?? []).map((asset) => [asset.id, asset.url])),
      },
      limits: options.limits,
    });
    this.liquid = liquid;
    this.slot = slot;
    this.site = { ...options.snapshot.site, url: options.snapshot.site.publicUrl ?? null };
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
      const item = this.source.item(id);
      if (item) this.reader.forget(item);
      if (url === null || url === undefined) this.urls.delete(id);
      else this.urls.set(id, url);
    }
    this.source.update(params.snapshot, params.items, params.removed);
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
    reader.begin();
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
    try {
      const scope: Record<string, unknown> = { site: this.site, env: this.env };
      if (spec.kind === 'item') {
        const item = reader.item(spec.itemId);
        scope.item = item;
        scope.page = { url: spec.path, path: spec.path, kind: 'item', title: titleOf(item) };
      } else {
        const route = spec.route;
        scope.route = { ...route, data: route.data ?? {} };
        scope.page = { url: spec.path, path: spec.path, kind: 'route', title: route.title ?? null };
        if (route.contentId) scope.item = reader.item(route.contentId);
        if (route.paginate) {
          const size = Math.max(1, Math.trunc(route.paginate.size ?? 10));
          const result = reader.list({
            type: route.paginate.type,
            where: route.paginate.where ? parseWhere(route.paginate.where) : [],
            sort: parseSort(route.paginate.sort),
            limit: size,
            offset: (spec.page - 1) * size,
          });
          const base = spec.page === 1 ? spec.path : spec.path.replace(/page\/\d+\/$/, '');
          const href = (n: number) => (n === 1 ? base : `${base}page/${n}/`);
          scope.pagination = {
            items: result.items,
            total: result.total,
            size,
            page: spec.page,
            pages: spec.pages,
            previous: spec.page > 1 ? href(spec.page - 1) : null,
            next: spec.page < spec.pages ? href(spec.page + 1) : null,
            hrefs: Array.from({ length: spec.pages }, (_, i) => href(i + 1)),
          };
        }
      }
      const html = String(this.liquid.renderSync(templates, scope));
      if (html.length > this.maxPageBytes) {
        return this.fail(spec, new Error(`the page is larger than ${this.maxPageBytes} bytes`), reader.deps);
      }
      return this.finish(spec, html, reader.deps);
    } catch (error) {
      return this.fail(spec, error, reader.deps);
    } finally {
      this.slot.reader = null;
    }
  }

  private finish(spec: ArtifactSpec, html: string, deps: ArtifactDeps): RenderedArtifact {
    return {
      key: spec.key,
      file: spec.file,
      html,
      bytes: Buffer.byteLength(html),
      hash: hashText(html),
      deps,
    };
  }

  private fail(spec: ArtifactSpec, error: unknown, deps: ArtifactDeps): RenderedArtifact {
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

function titleOf(item: Record<string, unknown> | null): string | null {
  if (!item) return null;
  for (const key of ['title', 'name', 'label', 'slug']) {
    if (typeof item[key] === 'string' && item[key] !== '') return item[key] as string;
  }
  return null;
}
