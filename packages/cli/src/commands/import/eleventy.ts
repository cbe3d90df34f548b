import { join, relative, sep } from 'node:path';
import type { CreateRouteBody, SiteCollection } from '@trelliscms/core';
import { isApiError, type SiteClient, type TrellisClient } from '@trelliscms/sdk';
import { ExitCode, UsageError } from '../../errors';
import type { CliIo } from '../../io/cli-io';
import { parseFrontMatter } from '../../io/front-matter';
import type { Output } from '../../io/output';

/** One file of an Eleventy site: its path relative to the site's input folder, and its text. */
export interface EleventyFile {
  path: string;
  content: string;
}

/** What `cms import eleventy` brings over, planned from the files alone. */
export interface EleventyPlan {
  type: string;
  /** the type's fields, by the values the front matter holds */
  fields: Array<{ name: string; type: 'string' | 'markdown' | 'stringlist' | 'number' | 'boolean' }>;
  /** `/<folder>/{slug}/` when the content sits in one folder, as Eleventy's default URLs are */
  routePattern: string | null;
  records: Array<Record<string, unknown>>;
  /** Eleventy's collections: `all`, and one per tag (as `site.collections`) */
  collections: Record<string, SiteCollection>;
  /** routes for Eleventy's paginated templates (pages per tag, listings of a tag's collection) */
  /** routes for Eleventy's paginated templates (their templates are `_eleventy-tag` and `_eleventy-list`, named like partials so they are never item pages) */
  routes: Array<CreateRouteBody & { eleventySource: string }>;
  warnings: string[];
}

const SKIPPED_DIRS = new Set(['node_modules', '_site', '_includes', '_layouts', '_data']);
const TEMPLATE_EXTENSIONS = ['.liquid', '.njk', '.html', '.md'];
/** front matter keys of Eleventy itself, not content */
const ELEVENTY_KEYS = new Set([
  'layout',
  'permalink',
  'pagination',
  'eleventyComputed',
  'eleventyNavigation',
  'eleventyExcludeFromCollections',
  'templateEngineOverride',
  'eleventyImport',
]);

function fileSlug(path: string): string {
  const parts = path.split('/');
  const name = parts.at(-1)!.replace(/\.[^.]+$/, '');
  return name === 'index' && parts.length > 1 ? parts.at(-2)! : name;
}

function tagsOf(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value))
    return value.filter((tag): tag is string => typeof tag === 'string' && tag !== '');
  return [];
}

/** A Liquid identifier for a tag's collection (`collections.post` keeps its name); null when the tag has none. */
function collectionName(tag: string): string | null {
  return /^[A-Za-z_]\w*$/.test(tag) && tag.length <= 64 ? tag : null;
}

function scalarType(value: unknown): 'string' | 'number' | 'boolean' | null {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return null;
}

/** The path of a permalink up to its first Liquid expression, as a site path (`/tags/`). */
function staticPrefix(permalink: string): string {
  const cut = permalink.search(/\{[{%]/);
  const head = (cut < 0 ? permalink : permalink.slice(0, cut)).replace(/index\.html$/, '');
  const trimmed = head.replace(/\/+$/, '');
  return `${trimmed.startsWith('/') ? '' : '/'}${trimmed}/`.replace(/\/+/g, '/');
}

/**
 * Plans the import of an Eleventy site from its files: every Markdown file with front matter
 * (outside `_includes`, `_data`, `_site`, `node_modules`) becomes an item of `type` (`title`,
 * `date`, `tags`, the other plain front matter keys, `body` = the Markdown; the id is
 * `<type>:<slug>`, the slug Eleventy's `fileSlug` or the front matter's `slug`); tags become a `tags` list field and site collections (`all`, and one
 * per tag named like Eleventy's `collections.<tag>`); a template paginating over
 * `collections` (pages per tag) becomes a listing route paginated by the `tags` field, and one
 * paginating over `collections.<tag>` a listing of that tag, `size` per page.
 */
export function planEleventyImport(params: { files: readonly EleventyFile[]; type: string }): EleventyPlan {
  const { type } = params;
  const warnings: string[] = [];
  const records: Array<Record<string, unknown>> = [];
  const fieldTypes = new Map<string, EleventyPlan['fields'][number]['type']>([
    ['title', 'string'],
    ['date', 'string'],
    ['tags', 'stringlist'],
    ['body', 'markdown'],
  ]);
  const folders = new Set<string>();
  const tags = new Set<string>();
  const routes: EleventyPlan['routes'] = [];
  const slugs = new Set<string>();
  for (const file of params.files) {
    let parsed: ReturnType<typeof parseFrontMatter>;
    try {
      parsed = parseFrontMatter(file.content);
    } catch (error) {
      warnings.push(`${file.path}: ${error instanceof Error ? error.message : String(error)}; skipped`);
      continue;
    }
    const { data, body } = parsed;
    const pagination = data.pagination as { data?: unknown; size?: unknown; alias?: unknown } | undefined;
    if (pagination && typeof pagination === 'object') {
      const route = paginationRoute(file.path, data, pagination, type);
      if (route) routes.push(route);
      else warnings.push(`${file.path}: pagination over ${String(pagination.data)} is not brought over`);
      continue;
    }
    if (!file.path.endsWith('.md')) continue;
    if (data.eleventyExcludeFromCollections === true || data.permalink === false) continue;
    const slug = typeof data.slug === 'string' ? data.slug : fileSlug(file.path);
    if (slugs.has(slug)) {
      warnings.push(`${file.path}: another file has the slug "${slug}"; skipped`);
      continue;
    }
    slugs.add(slug);
    // the item's id is `<type>:<slug>`; its pages are at its slug, as Eleventy's at its fileSlug
    const record: Record<string, unknown> = { id: `${type}:${slug}`, body: body.trim() };
    for (const [key, value] of Object.entries(data)) {
      if (ELEVENTY_KEYS.has(key) || key === 'slug' || key === 'body' || key === 'id') continue;
      if (key === 'tags') {
        const list = tagsOf(value);
        record.tags = list;
        for (const tag of list) tags.add(tag);
        continue;
      }
      if (key === 'title' || key === 'date') {
        record[key] = String(value);
        continue;
      }
      const kind = scalarType(value);
      if (!kind) {
        warnings.push(`${file.path}: front matter "${key}" is not a plain value; left out`);
        continue;
      }
      const known = fieldTypes.get(key);
      if (known && known !== kind) {
        record[key] = String(value);
        fieldTypes.set(key, 'string');
      } else {
        record[key] = value;
        fieldTypes.set(key, kind);
      }
    }
    record.title ??= slug;
    const folder = file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : '';
    folders.add(
      file.path.endsWith('/index.md') ? folder.slice(0, Math.max(0, folder.lastIndexOf('/'))) : folder,
    );
    records.push(record);
  }
  const collections: Record<string, SiteCollection> = { all: { type, sort: 'date' } };
  for (const tag of [...tags].sort()) {
    const name = collectionName(tag);
    if (!name || name === 'all') {
      if (name !== 'all')
        warnings.push(
          `tag "${tag}" is not a Liquid name: no collections.${tag} (the tags collection groups it)`,
        );
      continue;
    }
    if (Object.keys(collections).length >= 31) {
      warnings.push(
        `more than 30 tags: collections.${tag} and the next are left out (the tags collection groups them)`,
      );
      break;
    }
    collections[name] = { type, where: `tags contains '${tag}'`, sort: 'date' };
  }
  collections.tags = { type, groupBy: 'tags', sort: '-date' };
  const [folder] = folders;
  const routePattern = folders.size === 1 && folder ? `/${folder}/{slug}/` : null;
  const fields = [...fieldTypes].map(([name, fieldType]) => ({ name, type: fieldType }));
  return { type, fields, routePattern, records, collections, routes, warnings };
}

function paginationRoute(
  path: string,
  data: Record<string, unknown>,
  pagination: { data?: unknown; size?: unknown },
  type: string,
): EleventyPlan['routes'][number] | null {
  const source = typeof pagination.data === 'string' ? pagination.data : '';
  const size =
    typeof pagination.size === 'number' && pagination.size >= 1 ? Math.min(1000, pagination.size) : 10;
  const permalink = typeof data.permalink === 'string' ? data.permalink : null;
  const slug = `eleventy-${fileSlug(path)
    .replace(/[^a-z0-9-]+/gi, '-')
    .toLowerCase()}`;
  if (source === 'collections' || source === 'collections.tags') {
    // Eleventy's pages per tag: one page per tag, listing the tag's items
    const prefix = permalink ? staticPrefix(permalink) : '/tags/';
    return {
      slug,
      path: `${prefix}{value}/`,
      kind: 'listing',
      template: '_eleventy-tag',
      title: typeof data.title === 'string' ? data.title : 'Tagged',
      paginate: { type, field: 'tags', size: 100, sort: '-date' },
      enabled: true,
      eleventySource: path,
    };
  }
  const tag = /^collections\.([A-Za-z_][\w-]*)$/.exec(source)?.[1];
  if (tag) {
    return {
      slug,
      path: permalink ? staticPrefix(permalink) : `/${fileSlug(path)}/`,
      kind: 'listing',
      template: '_eleventy-list',
      title: typeof data.title === 'string' ? data.title : tag,
      paginate: {
        type,
        size,
        sort: '-date',
        ...(tag === 'all' ? {} : { where: `tags contains '${tag.replace(/'/g, '')}'` }),
      },
      enabled: true,
      eleventySource: path,
    };
  }
  return null;
}

const TAG_TEMPLATE = `<h1>{{ pagination.value }}</h1>
<ul>{% for item in pagination.items %}<li><a href="{{ item.url }}">{{ item.title }}</a> {{ item.date }}</li>{% endfor %}</ul>
{% if pagination.next %}<a rel="next" href="{{ pagination.next }}">Next</a>{% endif %}`;
const LIST_TEMPLATE = `<h1>{{ route.title }}</h1>
<ul>{% for item in pagination.items %}<li><a href="{{ item.url }}">{{ item.title }}</a> {{ item.date }}</li>{% endfor %}</ul>
{% if pagination.previous %}<a rel="prev" href="{{ pagination.previous }}">Previous</a>{% endif %}
{% if pagination.next %}<a rel="next" href="{{ pagination.next }}">Next</a>{% endif %}`;
const ITEM_TEMPLATE = `<article><h1>{{ item.title }}</h1>
<ul class="tags">{% for tag in item.tags %}<li><a href="/tags/{{ tag | slugify }}/">{{ tag }}</a></li>{% endfor %}</ul>
{{ item.body | markdown }}</article>`;

/** Every file under `dir` an import reads, relative to it with `/` separators. */
async function readEleventyFiles(io: CliIo, dir: string): Promise<EleventyFile[]> {
  const files: EleventyFile[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = (await io.fs.readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(path);
      } else if (TEMPLATE_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) {
        files.push({
          path: relative(dir, path).split(sep).join('/'),
          content: await io.fs.readFile(path, 'utf8'),
        });
      }
    }
  };
  await walk(dir);
  return files;
}

async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (error) {
    if (isApiError(error) && error.status === 404) return false;
    throw error;
  }
}

/**
 * `cms import eleventy <dir>`: brings an Eleventy site's content over (see
 * {@link planEleventyImport}): creates the content type (unless it exists), a page template for
 * it and templates for the tag and listing routes (unless they exist), imports the items, creates
 * the routes, and merges the collections into the site's. Layouts and the site's own Liquid
 * templates are not converted (their `{{ content }}`, filters and shortcodes differ): the
 * summary says so. `--dry-run` prints the plan and writes nothing.
 */
export async function importEleventy(params: {
  site: SiteClient;
  client: TrellisClient;
  out: Output;
  io: CliIo;
  dir: string;
  type: string;
  dryRun: boolean;
  publish?: string;
}): Promise<number> {
  const { site, client, out, io } = params;
  const dir = join(io.cwd, params.dir);
  let files: EleventyFile[];
  try {
    files = await readEleventyFiles(io, dir);
  } catch (error) {
    throw new UsageError(
      `cannot read ${params.dir}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const plan = planEleventyImport({ files, type: params.type });
  if (plan.records.length === 0)
    throw new UsageError(`no Markdown content with front matter under ${params.dir}`);
  const summary = {
    type: plan.type,
    items: plan.records.length,
    fields: plan.fields,
    routePattern: plan.routePattern,
    routes: plan.routes.map(({ eleventySource, ...route }) => ({ ...route, from: eleventySource })),
    collections: Object.keys(plan.collections),
    warnings: plan.warnings,
    dryRun: params.dryRun,
  };
  if (params.dryRun) {
    out.result(summary, () => describe(summary, 'would import'));
    return ExitCode.ok;
  }
  const existing = await site.types.get(plan.type).catch((error: unknown) => {
    if (isApiError(error) && error.status === 404) return null;
    throw error;
  });
  if (existing) {
    // the type exists (a starter kit's `post`, say): add the fields the content has and it lacks, optional
    const known = new Set(existing.fields.map((field) => field.name));
    const missing = plan.fields.filter((field) => !known.has(field.name));
    if (missing.length > 0) {
      await site.types.update(plan.type, {
        fields: [...existing.fields, ...missing.map((field) => ({ ...field, required: false }))],
      } as Parameters<SiteClient['types']['update']>[1]);
    }
  } else {
    await site.types.create({
      name: plan.type,
      label: plan.type[0]!.toUpperCase() + plan.type.slice(1),
      nodeLabel:
        plan.type[0]!.toUpperCase() +
        plan.type.slice(1).replace(/_(\w)/g, (_m, c: string) => c.toUpperCase()),
      keyField: 'title',
      routePattern: plan.routePattern,
      fields: plan.fields.map((field) => ({ ...field, required: field.name === 'title' })),
    } as Parameters<SiteClient['types']['create']>[0]);
  }
  const templates = new Set((await site.templates.list()).map((template) => template.name));
  const wanted: Array<{ name: string; content: string; boundType?: string }> = [
    { name: plan.type, content: ITEM_TEMPLATE, boundType: plan.type },
  ];
  if (plan.routes.some((route) => route.template === '_eleventy-tag'))
    wanted.push({ name: '_eleventy-tag', content: TAG_TEMPLATE });
  if (plan.routes.some((route) => route.template === '_eleventy-list'))
    wanted.push({ name: '_eleventy-list', content: LIST_TEMPLATE });
  for (const template of wanted) {
    if (templates.has(template.name)) continue;
    await site.templates.create(template as Parameters<SiteClient['templates']['create']>[0]);
  }
  const imported = await site.import.records({
    typeName: plan.type,
    records: plan.records,
    publish: params.publish,
  });
  for (const { eleventySource: _source, ...route } of plan.routes) {
    if (await exists(() => site.routes.get(route.slug))) continue;
    await site.routes.create(route);
  }
  const current = await client.sites.get(site.id);
  await client.sites.update(site.id, {
    collections: { ...(current.collections ?? {}), ...plan.collections },
  });
  const result = {
    ...summary,
    created: imported.created,
    updated: imported.updated,
    failed: imported.failed,
  };
  out.result(result, () => [
    ...describe(summary, 'imported'),
    `  created ${imported.created}, updated ${imported.updated}, failed ${imported.failed}`,
    '  layouts and Liquid templates of the Eleventy site are not converted: port them to templates (cms templates)',
  ]);
  return imported.failed > 0 ? ExitCode.partial : ExitCode.ok;
}

function describe(
  summary: {
    type: string;
    items: number;
    routePattern: string | null;
    routes: Array<{ path: string; from: string }>;
    collections: string[];
    warnings: string[];
  },
  verb: string,
): string[] {
  return [
    `${verb} ${summary.items} item(s) of type ${summary.type}${summary.routePattern ? ` at ${summary.routePattern}` : ''}`,
    ...summary.routes.map((route) => `  route ${route.path} (from ${route.from})`),
    `  site.collections: ${summary.collections.join(', ')}`,
    ...summary.warnings.map((warning) => `  warning: ${warning}`),
  ];
}
