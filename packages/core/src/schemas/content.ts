import { z } from 'zod';
import { MAX_LIST_QUERY_LENGTH } from '../content/list-language';
import {
  CONTENT_ID_PATTERN,
  ContentId,
  DateTime,
  JsonObject,
  QueryFlag,
  QueryInt,
  TYPE_NAME_MAX_LENGTH,
  TYPE_NAME_PATTERN,
  TypeName,
} from './common';
import { WorkflowHistoryEntry } from './workflows';

/** One block of an item body: an id, a block type and its data. */
export const Block = z
  .object({
    id: z.string().min(1).max(100),
    type: z.string().min(1).max(64),
    data: JsonObject,
  })
  .meta({ id: 'Block' });
export type Block = z.infer<typeof Block>;

/**
 * The block document an item body persists as (docs/api-spec.md §2): `time` (milliseconds since the
 * epoch of the last edit), the ordered `blocks`, and the document format `version`.
 */
export const BlockDocument = z
  .object({
    time: z.number().int().min(0),
    blocks: z.array(Block),
    version: z.string().min(1).max(32),
  })
  .meta({ id: 'BlockDocument' });
export type BlockDocument = z.infer<typeof BlockDocument>;

/**
 * Spec §2 ContentRecord. `fields` and `relationships` are free-form; the stored item also
 * carries its workflow `status`, its `version` (bumped on every write), its content `hash`
 * and its `body` block document.
 */
export const ContentRecord = z
  .object({
    id: ContentId,
    type: z.string(),
    fields: JsonObject,
    relationships: JsonObject.optional(),
    status: z.string().optional(),
    /** The environments the item was published to (POST /content/{type}/{id}/publish); default `prod`. */
    publishedEnvs: z.array(z.string()).optional(),
    publishedAt: DateTime.nullable().optional(),
    version: z.number().int().min(1).optional(),
    hash: z.string().optional(),
    body: BlockDocument.optional(),
    createdAt: DateTime.optional(),
    updatedAt: DateTime.optional(),
  })
  .meta({ id: 'ContentRecord' });
export type ContentRecord = z.infer<typeof ContentRecord>;

/** The withMeta envelope of a content list. `total` counts every match, independent of `limit`. */
export const ContentListEnvelope = z
  .object({
    items: z.array(ContentRecord),
    total: z.number().int().min(0),
    limit: z.number().int().nullable().optional(),
    offset: z.number().int().min(0).optional(),
    appliedFilters: JsonObject.optional(),
  })
  .meta({ id: 'ContentListEnvelope' });
export type ContentListEnvelope = z.infer<typeof ContentListEnvelope>;

/** Spec §2 ContentList: a bare array (default) or, with `withMeta`, the envelope. */
export const ContentList = z.union([z.array(ContentRecord), ContentListEnvelope]).meta({ id: 'ContentList' });
export type ContentList = z.infer<typeof ContentList>;

/** The largest `limit` a content list takes (the spec leaves it open). */
export const MAX_CONTENT_LIST_LIMIT = 1000;

/** The workflow status of an item: `draft` until published, then `published`. */
export const ContentStatus = z.enum(['draft', 'published']).meta({ id: 'ContentStatus' });
export type ContentStatus = z.infer<typeof ContentStatus>;

/**
 * GET /api/content/{type} query: `withMeta` (`1`/`true`) asks for the envelope; `limit` (1 to
 * 1000) and `offset` page; `q` is a full-text search; `status` filters by workflow status;
 * `where` and `sort` are the list language of `{% list %}` (core `content/list-language.ts`):
 * `where=year >= 2000 and tags contains 'sf'`, `sort=-year,title`.
 */
export const ContentListQuery = z.object({
  withMeta: QueryFlag.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_CONTENT_LIST_LIMIT).optional(),
  offset: QueryInt.optional(),
  q: z.string().max(500).optional(),
  status: ContentStatus.optional(),
  where: z.string().max(MAX_LIST_QUERY_LENGTH).optional(),
  sort: z.string().max(MAX_LIST_QUERY_LENGTH).optional(),
});
export type ContentListQuery = z.infer<typeof ContentListQuery>;

/** The explicit form of a content write: `{fields, relationships?}` and nothing else. */
export const ContentWrite = z
  .strictObject({
    fields: JsonObject,
    relationships: JsonObject.optional(),
  })
  .meta({ id: 'ContentWrite' });
export type ContentWrite = z.infer<typeof ContentWrite>;

/**
 * POST /api/content/{type}: either `{fields, relationships?}` (exactly those keys) or a
 * free-form object whose keys are the fields. `toContentWrite` (content/content-write.ts) reads either.
 */
export const CreateContentBody = z.union([ContentWrite, JsonObject]).meta({ id: 'CreateContentBody' });
export type CreateContentBody = z.infer<typeof CreateContentBody>;

/**
 * PATCH /api/content/{type}/{id}: a partial update, in either form. Given fields replace the
 * stored ones; others stay. In the explicit form `expectedVersion` makes the write fail with
 * 409 `version_conflict` when the item changed since it was read.
 */
export const UpdateContentBody = z
  .union([
    z
      .strictObject({
        fields: JsonObject.optional(),
        relationships: JsonObject.optional(),
        expectedVersion: z.number().int().min(1).optional(),
      })
      .refine((body) => body.fields !== undefined || body.relationships !== undefined, {
        message: 'give fields or relationships',
      }),
    JsonObject,
  ])
  .meta({ id: 'UpdateContentBody' });
export type UpdateContentBody = z.infer<typeof UpdateContentBody>;

/** Path parameters of /api/content/{type}. */
export const ContentTypePathParams = z.object({ type: TypeName });
export type ContentTypePathParams = z.infer<typeof ContentTypePathParams>;

/** Path parameters of /api/content/{type}/{id}: `id` is the full id `<type>:<slug>` of that type. */
export const ContentItemParams = z
  .object({ type: TypeName, id: ContentId })
  .refine((params) => params.id.startsWith(`${params.type}:`), {
    message: 'the id must be <type>:<slug> with the type of the path',
    path: ['id'],
  });
export type ContentItemParams = z.infer<typeof ContentItemParams>;

/**
 * {@link ContentItemParams}'s checks as one plain function, for the hot read route: the value
 * `ContentItemParams.safeParse(params)` gives when the pair is valid (a new object of `type` and
 * `id`), else null — then let zod answer, with its own error.
 */
export function validContentItemParams(params: unknown): ContentItemParams | null {
  if (typeof params !== 'object' || params === null) return null;
  const { type, id } = params as { type?: unknown; id?: unknown };
  if (typeof type !== 'string' || typeof id !== 'string') return null;
  if (type.length > TYPE_NAME_MAX_LENGTH || !TYPE_NAME_PATTERN.test(type)) return null;
  if (!CONTENT_ID_PATTERN.test(id) || !id.startsWith(`${type}:`)) return null;
  return { type, id };
}

/** Path parameters of /api/content/{type}/{id}/blocks/{bid}. */
export const ContentBlockParams = z
  .object({ type: TypeName, id: ContentId, bid: z.string().min(1).max(100) })
  .refine((params) => params.id.startsWith(`${params.type}:`), {
    message: 'the id must be <type>:<slug> with the type of the path',
    path: ['id'],
  });
export type ContentBlockParams = z.infer<typeof ContentBlockParams>;

/**
 * POST /api/content/{type}/{id}/blocks: appends a block of `blockType` with `fields` as its
 * data; `references` are item ids the block points at; `order` inserts at that index instead
 * of the end.
 */
export const AppendBlockBody = z
  .object({
    blockType: z.string().min(1).max(64),
    fields: JsonObject,
    references: z.array(ContentId).max(500).optional(),
    order: z.number().int().min(0).optional(),
  })
  .meta({ id: 'AppendBlockBody' });
export type AppendBlockBody = z.infer<typeof AppendBlockBody>;

/** The answer of a block append or removal: the block concerned and the item's new body. */
export const BlockChangeResponse = z
  .object({
    ok: z.literal(true),
    id: ContentId,
    block: Block,
    body: BlockDocument,
    version: z.number().int().min(1).optional(),
  })
  .meta({ id: 'BlockChangeResponse' });
export type BlockChangeResponse = z.infer<typeof BlockChangeResponse>;

/** An environment name as publish takes it: `prod`, `dev`, `staging` (an `env:` prefix is allowed). */
export const PublishEnv = z
  .string()
  .regex(/^(env:)?[a-z0-9][a-z0-9_-]{0,63}$/, 'must be an environment name such as prod')
  .transform((env) => env.replace(/^env:/, ''));

/** POST /api/content/{type}/{id}/publish (and /unpublish) query: `env` (overrides the body's; default: the lowest-order environment above dev, `prod` unless others were added). */
export const PublishContentQuery = z.object({ env: PublishEnv.optional() });
export type PublishContentQuery = z.infer<typeof PublishContentQuery>;

/** POST /api/content/{type}/{id}/publish body (optional): `env`, and `expectedVersion` (like If-Match). */
export const PublishContentBody = z
  .object({ env: PublishEnv.optional(), expectedVersion: z.number().int().min(1).optional() })
  .meta({ id: 'PublishContentBody' });
export type PublishContentBody = z.infer<typeof PublishContentBody>;

/**
 * POST /api/publish and POST /api/unpublish: many items at once, in one transaction and one
 * live revision. Name them by `ids`, or by `type` (every item of it, narrowed by `status` or
 * full-text `q`). `env` defaults as for one item (the lowest-order environment above dev).
 */
export const BulkPublishBody = z
  .object({
    env: PublishEnv.optional(),
    ids: z.array(ContentId).min(1).max(10_000).optional(),
    type: TypeName.optional(),
    status: ContentStatus.optional(),
    q: z.string().min(1).max(500).optional(),
  })
  .refine((body) => (body.ids === undefined) !== (body.type === undefined), {
    message: 'name the items by ids or by type (one of them)',
    path: ['ids'],
  })
  .meta({ id: 'BulkPublishBody' });
export type BulkPublishBody = z.infer<typeof BulkPublishBody>;

/** The answer of a bulk publish or unpublish. */
export const BulkPublishResponse = z
  .object({
    ok: z.boolean(),
    envId: z.string(),
    /** Items whose live version in the environment changed. */
    changed: z.number().int().min(0),
    /** Items already live at their head version (publish) or not live (unpublish). */
    unchanged: z.number().int().min(0),
    /** The ids changed, in order. */
    ids: z.array(z.string()),
    /** The environment's live revision after the change. */
    revision: z.number().int().min(0),
  })
  .meta({ id: 'BulkPublishResponse' });
export type BulkPublishResponse = z.infer<typeof BulkPublishResponse>;

/**
 * One recorded version of an item: every write records one, with a snapshot of the fields and
 * body and its content `hash`, so releases can bundle exact versions.
 */
export const ItemVersion = z
  .object({
    /** `<itemId>@<version>` */
    id: z.string(),
    itemId: ContentId,
    version: z.number().int().min(1),
    hash: z.string(),
    status: z.string(),
    /** What made it, e.g. `content.update`, `content.publish`, `content.import`. */
    action: z.string(),
    actor: z.string(),
    at: DateTime,
    fields: JsonObject,
    body: BlockDocument.nullable(),
    /** The workflow moves made while this version was the head, oldest first (docs/workflows.md). */
    transitions: z.array(WorkflowHistoryEntry).optional(),
  })
  .meta({ id: 'ItemVersion' });
export type ItemVersion = z.infer<typeof ItemVersion>;

/** GET /api/content/{type}/{id}/versions: newest first. */
export const ItemVersionList = z.array(ItemVersion).meta({ id: 'ItemVersionList' });
export type ItemVersionList = z.infer<typeof ItemVersionList>;

/** Path parameters of /api/content/{type}/{id}/versions/{version}. */
export const ItemVersionParams = z
  .object({ type: TypeName, id: ContentId, version: z.coerce.number().int().min(1) })
  .refine((params) => params.id.startsWith(`${params.type}:`), {
    message: 'the id must be <type>:<slug> with the type of the path',
    path: ['id'],
  });
export type ItemVersionParams = z.infer<typeof ItemVersionParams>;
