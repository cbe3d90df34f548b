import { z } from 'zod';
import { BlockType } from './block-types';
import { DateTime } from './common';
import { ContentRecord } from './content';
import { ContentType } from './content-type';
import { EdgeTriple } from './import';
import { Locale, Translations } from './locales';
import { PageKit } from './page-kits';
import { SavedQuery } from './queries';
import { Route } from './routes';
import { Script } from './scripts';
import { Site } from './site';
import { Template } from './template';
import { Transform } from './transforms';
import { View } from './views';
import { Widget } from './widgets';

/** The format tag of a site snapshot. */
export const SNAPSHOT_FORMAT = 'trellis-snapshot';
/** The snapshot format version this code reads and writes. */
export const SNAPSHOT_VERSION = 1;

/**
 * An item in a snapshot: a ContentRecord with the fields a build needs to decide what to
 * publish: its `version` and content `hash`, its workflow `status` and the environments it
 * has been published to (`publishedEnvs`, e.g. `["prod"]`; docs/api-spec.md §3 build environment rule).
 */
export const SnapshotItem = ContentRecord.extend({
  version: z.number().int().min(1),
  hash: z.string(),
  status: z.string(),
  publishedEnvs: z.array(z.string()),
  /** The item's embedding vector for `{% similar %}`, when the site has one. */
  embedding: z.array(z.number()).nullable().optional(),
  /** Per-locale values of the item's `translatable` fields: locale code → field → value. */
  translations: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
}).meta({ id: 'SnapshotItem' });
export type SnapshotItem = z.infer<typeof SnapshotItem>;

/** A media asset a snapshot's items may name (`asset:<id>`): where its file is served, for `media_url`. */
export const SnapshotAsset = z
  .object({ id: z.string(), url: z.string(), alt: z.string().nullable().optional() })
  .meta({ id: 'SnapshotAsset' });
export type SnapshotAsset = z.infer<typeof SnapshotAsset>;

/**
 * A site snapshot: everything a build reads, in one JSON document. It is the input of a
 * build (from a file with `cms-build`, or taken by the server) and the body of
 * `GET /api/export`. Edges are the relationship triples between items. Templates are at
 * their head version.
 */
export const SiteSnapshot = z
  .object({
    format: z.literal(SNAPSHOT_FORMAT),
    version: z.literal(SNAPSHOT_VERSION),
    site: Site,
    types: z.array(ContentType),
    items: z.array(SnapshotItem),
    edges: z.array(EdgeTriple),
    templates: z.array(Template),
    transforms: z.array(Transform),
    /** The site's scripts (script transforms and scripts bound to a build event run them). */
    scripts: z.array(Script).optional(),
    routes: z.array(Route),
    views: z.array(View),
    /** The saved queries `{% query %}` runs (optional: a snapshot without them has none). */
    queries: z.array(SavedQuery).optional(),
    /** Optional: block types, widgets, page kits, locales and translations the templates use. */
    blockTypes: z.array(BlockType).optional(),
    widgets: z.array(Widget).optional(),
    pageKits: z.array(PageKit).optional(),
    locales: z.array(Locale).optional(),
    translations: z.array(Translations).optional(),
    /**
     * How the items' `embedding`s were made: the provider (`hashed-bow`, the offline default,
     * or `openai-compatible:<model>`) and their dimension. A `bm25+vector` search index tells
     * the browser, which embeds a query the same way when the provider is `hashed-bow`.
     */
    embeddings: z
      .object({ provider: z.string().min(1).max(200), dimensions: z.number().int().min(1).max(65_536) })
      .optional(),
    /** Optional: the site's media assets (id → URL), so `media_url` turns `asset:<id>` values into URLs. */
    assets: z.array(SnapshotAsset).optional(),
    exportedAt: DateTime,
  })
  .meta({ id: 'SiteSnapshot' });
export type SiteSnapshot = z.infer<typeof SiteSnapshot>;
