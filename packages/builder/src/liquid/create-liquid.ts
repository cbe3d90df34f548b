import { type Context, Drop, Liquid, type Template } from 'liquidjs';
import { registerDateFilters } from './date-filters';
import {
  absoluteUrl,
  markdownToHtml,
  mediaUrl,
  pageRelativeUrl,
  relativeUrl,
  sanitize,
  slugify,
  type UrlSettings,
} from './filters';
import { registerLocaleHelpers } from './locale-tags';
import { createMemoryFs } from './memory-fs';
import { installSyncRender } from './sync-render';
import { type ReaderSlot, registerContentTags } from './tags';

/**
 * ms one page may take to render, unless given (liquidjs `renderLimit`). A page takes
 * milliseconds; one at the limit loops, and stops the build (so a looping template ends a build
 * within about this long). It was 10 s.
 */
export const DEFAULT_RENDER_TIME_MS = 5_000;

/**
 * Whether an error (message) is liquidjs's render time limit. liquidjs 10.30 checks it before
 * each template of a block, so every turn of a loop, however deeply nested, checks it: a loop
 * is stopped within about the limit (a single filter call is not interrupted; the render
 * workers' stall watchdog backs that up).
 */
export function isRenderTimeLimit(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return message.includes('template render limit exceeded');
}

/** Limits of one render (liquidjs's own; a worker's memory and time limits back them up). */
export interface LiquidLimits {
  /** ms one page may take to render (liquidjs `renderLimit`); default {@link DEFAULT_RENDER_TIME_MS} (5 000) */
  renderTimeMs?: number;
  /** bytes of strings and arrays one render may allocate (liquidjs `memoryLimit`); default 64 MB */
  memoryBytes?: number;
  /** characters of template source one parse may read (liquidjs `parseLimit`); default 1 MB */
  parseChars?: number;
  /**
   * report the variables a page reads that have no value (`undefined_variable` warnings naming
   * template, line and variable), by a second, strict render of each page; validate builds set it
   */
  reportUndefined?: boolean;
}

export interface CreateLiquidParams {
  /** template name → Liquid source: partials and layouts are read from here */
  templates: ReadonlyMap<string, string>;
  urls: UrlSettings;
  slot?: ReaderSlot;
  limits?: LiquidLimits;
  /** `escape` (pages, the default) or `none` (transforms, which produce data, not HTML) */
  escape?: 'escape' | 'none';
}

/**
 * The site's Liquid environment: output escaped by default (`| raw` opts out; `markdown` and
 * `sanitize` return sanitized HTML unescaped), own properties only, unknown filters are parse
 * errors, partials and layouts only from the site's templates, render time / memory / parse
 * limits, dates in UTC. Filters: `markdown`, `sanitize`, `relative_url` (relative to the page
 * being rendered, else prefixed with the public URL's path), `absolute_url`, `media_url`,
 * `slugify`, `t` (UI strings), plus liquidjs's standard ones (`date`, `escape`, ...). Tags:
 * `{% list %}`, `{% traverse %}`, `{% similar %}`, `{% hreflang %}`, `{% pagekit %}` (see README).
 */
export function createLiquid(params: CreateLiquidParams): { liquid: Liquid; slot: ReaderSlot } {
  const slot = params.slot ?? { reader: null };
  const limits = params.limits ?? {};
  const liquid = new Liquid({
    fs: createMemoryFs(params.templates),
    root: ['/'],
    partials: ['/'],
    layouts: ['/'],
    extname: '',
    relativeReference: false,
    dynamicPartials: true,
    cache: true,
    outputEscape: params.escape === 'none' ? undefined : 'escape',
    ownPropertyOnly: true,
    strictFilters: true,
    timezoneOffset: 0,
    renderLimit: limits.renderTimeMs ?? DEFAULT_RENDER_TIME_MS,
    memoryLimit: limits.memoryBytes ?? 64_000_000,
    parseLimit: limits.parseChars ?? 1_000_000,
  });
  const urls = params.urls;
  liquid.registerFilter('markdown', { handler: markdownToHtml, raw: true });
  liquid.registerFilter('sanitize', { handler: sanitize, raw: true });
  // In a page (`page.path` set), links are relative to the page, so one build works at any base
  // path: a domain's root, a sub-path, or the server's preview at /sites/<slug>/<env>/.
  liquid.registerFilter('relative_url', function (this: { context: Context }, value: unknown) {
    const from = this.context.getSync(['page', 'path']);
    return typeof from === 'string' && from.startsWith('/')
      ? pageRelativeUrl(value, from)
      : relativeUrl(value, urls);
  });
  liquid.registerFilter('absolute_url', (value: unknown) => absoluteUrl(value, urls));
  liquid.registerFilter('media_url', (value: unknown) => mediaUrl(value, urls));
  liquid.registerFilter('slugify', slugify);
  registerDateFilters(liquid);
  registerContentTags(liquid, slot);
  registerLocaleHelpers(liquid, slot);
  if (liquid.options.outputEscape) {
    // HTML the build made itself (a widget area) is output as it is; everything else is escaped
    const escapeOutput = liquid.options.outputEscape;
    const escapeWith = escapeOutput as (this: unknown, ...args: unknown[]) => unknown;
    liquid.options.outputEscape = function (this: unknown, value: unknown, ...rest: unknown[]) {
      return value instanceof SafeHtml ? value.html : escapeWith.apply(this, [value, ...rest]);
    } as typeof escapeOutput;
  }
  rememberTemplateFiles(liquid);
  installSyncRender(liquid);
  return { liquid, slot };
}

/**
 * HTML rendered by the build itself (a widget area): output unescaped, and compared and
 * measured as its string (`{% if widgets.sidebar != blank %}`, `| size`).
 */
export class SafeHtml extends Drop {
  constructor(readonly html: string) {
    super();
  }
  override valueOf(): string {
    return this.html;
  }
  override liquidMethodMissing(key: string): unknown {
    return key === 'size' ? this.html.length : undefined;
  }
  toString(): string {
    return this.html;
  }
}

type FileParser = Liquid['_parsePartialFile'];

/**
 * Partials and layouts parsed once per environment. liquidjs caches parsed files too
 * (`cache: true`), but still builds a parser and a file loader for every `{% render %}`,
 * `{% include %}` and `{% layout %}` it runs, several per page. The templates an environment
 * reads never change (as with liquidjs's cache); a file that fails to parse is not remembered.
 */
function rememberTemplateFiles(liquid: Liquid): void {
  const remember = (parse: FileParser): FileParser => {
    const parsed = new Map<string, Template[]>();
    return function* (file, sync, currentFile) {
      const known = parsed.get(file);
      if (known) return known;
      const templates = (yield* parse(file, sync, currentFile)) as Template[];
      parsed.set(file, templates);
      return templates;
    };
  };
  liquid._parsePartialFile = remember(liquid._parsePartialFile.bind(liquid));
  liquid._parseLayoutFile = remember(liquid._parseLayoutFile.bind(liquid));
}
