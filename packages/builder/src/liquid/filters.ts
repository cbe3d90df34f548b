import { createRequire } from 'node:module';
import { marked } from 'marked';
import type SanitizeHtml from 'sanitize-html';
import { sanitizedPlainHtml } from './plain-html';
import { plainMarkdown } from './plain-markdown';

/** What URL filters need to know about the site. */
export interface UrlSettings {
  /** the site's public URL, e.g. `https://example.org/blog` (null: root-relative URLs) */
  publicUrl: string | null;
  /** where `/media/...` paths are served from (default: the public URL's origin) */
  mediaBaseUrl?: string | null;
  /** media asset id (`asset:<id>`) → its URL (`/media/assets/<sha>.<ext>`), so `media_url` resolves asset ids */
  assets?: ReadonlyMap<string, string> | null;
}

// sanitize-html (with postcss) takes a render worker longer to load than many pages take to
// render, and ordinary markdown never needs it: it is loaded on first use.
const load = createRequire(import.meta.url);
let sanitizer: { run: typeof SanitizeHtml; options: SanitizeHtml.IOptions } | null = null;

function sanitizeHtml(html: string): string {
  if (!sanitizer) {
    const run = load('sanitize-html') as typeof SanitizeHtml;
    const options: SanitizeHtml.IOptions = {
      allowedTags: [...run.defaults.allowedTags, 'img', 'h1', 'h2', 'figure', 'figcaption'],
      allowedAttributes: {
        ...run.defaults.allowedAttributes,
        img: ['src', 'srcset', 'alt', 'title', 'width', 'height', 'loading'],
        '*': ['id'],
      },
      allowedSchemes: ['http', 'https', 'mailto'],
    };
    sanitizer = { run, options };
  }
  return sanitizer.run(html, sanitizer.options);
}

/** Markdown to sanitized HTML (marked, then sanitize-html: no scripts, no event handlers, no `javascript:` URLs). */
export function markdownToHtml(source: unknown): string {
  if (source === null || source === undefined) return '';
  const text = String(source);
  // Plain prose (paragraphs, headings, simple lists, bold runs, links) without marked's lexer:
  // the same HTML (`plain-markdown.ts`).
  const plain = plainMarkdown(text);
  if (plain !== null) return plain;
  const html = marked.parse(text, { async: false, gfm: true }) as string;
  // Ordinary markdown gives markup the sanitizer would keep as it is: skip parsing it again.
  return sanitizedPlainHtml(html) ?? sanitizeHtml(html);
}

/** Sanitizes HTML (for `richtext` fields). */
export function sanitize(source: unknown): string {
  if (source === null || source === undefined) return '';
  return sanitizeHtml(String(source));
}

/** `Hello, Wörld!` → `hello-world` */
export function slugify(value: unknown): string {
  return String(value ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const basePaths = new Map<string, string>();

function basePath(publicUrl: string | null): string {
  if (!publicUrl) return '';
  let path = basePaths.get(publicUrl);
  if (path === undefined) {
    try {
      path = new URL(publicUrl).pathname.replace(/\/+$/, '');
    } catch {
      path = '';
    }
    basePaths.set(publicUrl, path);
  }
  return path;
}

/** A root-relative path prefixed with the public URL's path: `/about/` → `/blog/about/`. Absolute URLs pass through. */
export function relativeUrl(value: unknown, settings: UrlSettings): string {
  const text = String(value ?? '');
  if (isAbsoluteOrFragment(text)) return text;
  const path = text.startsWith('/') ? text : `/${text}`;
  return `${basePath(settings.publicUrl)}${path}`;
}

function isAbsoluteOrFragment(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith('//') || text.startsWith('#');
}

/**
 * A site path as a link relative to the page at `from` (a site path such as `/blog/hello/`), so
 * it works wherever the site is served, at a domain's root, under a path, or in the server's
 * preview at `/sites/<slug>/<env>/`: `/about/` from `/blog/hello/` → `../../about/`, `/` from `/`
 * → `./`. A query or fragment is kept; absolute URLs and fragments pass through.
 */
export function pageRelativeUrl(value: unknown, from: string): string {
  const text = String(value ?? '');
  if (isAbsoluteOrFragment(text)) return text;
  const cut = text.search(/[?#]/);
  const path = cut === -1 ? text : text.slice(0, cut);
  const suffix = cut === -1 ? '' : text.slice(cut);
  const target = (path.startsWith('/') ? path : `/${path}`).split('/').slice(1);
  const here = from.split('/').slice(1, -1);
  let common = 0;
  while (common < here.length && common < target.length - 1 && here[common] === target[common]) common++;
  const up = '../'.repeat(here.length - common);
  const rest = target.slice(common).join('/');
  const relative = `${up}${rest}`;
  return `${relative === '' ? './' : relative}${suffix}`;
}

/** A path made absolute against the public URL: `/about/` → `https://example.org/blog/about/`. */
export function absoluteUrl(value: unknown, settings: UrlSettings): string {
  const relative = relativeUrl(value, settings);
  if (!settings.publicUrl || /^[a-z][a-z0-9+.-]*:/i.test(relative)) return relative;
  try {
    return new URL(relative, new URL(settings.publicUrl).origin).toString();
  } catch {
    return relative;
  }
}

/**
 * A media reference (`/media/assets/<sha>.<ext>`, an asset id `asset:<id>` of the snapshot's
 * assets, an asset object with `url`, or a URL) as a URL. An unknown asset id gives ''.
 */
export function mediaUrl(value: unknown, settings: UrlSettings): string {
  let raw =
    typeof value === 'object' && value !== null && typeof (value as { url?: unknown }).url === 'string'
      ? (value as { url: string }).url
      : String(value ?? '');
  if (raw.startsWith('asset:')) raw = settings.assets?.get(raw) ?? '';
  if (raw === '' || /^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) return raw;
  const base = settings.mediaBaseUrl ?? null;
  if (base) return `${base.replace(/\/+$/, '')}${raw.startsWith('/') ? raw : `/${raw}`}`;
  return raw.startsWith('/') ? raw : `/${raw}`;
}
