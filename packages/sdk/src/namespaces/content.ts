import {
  type AppendBlockBody,
  BlockChangeResponse,
  type BulkPublishBody,
  BulkPublishResponse,
  ContentListEnvelope,
  type ContentListQuery,
  ContentRecord,
  type CreateContentBody,
  ItemVersion,
  ItemVersionList,
  type PublishContentBody,
  type UpdateContentBody,
} from '@trelliscms/core';
import { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';

/** GET /api/content/{type} without withMeta: a bare array. */
const ContentRecordList = z.array(ContentRecord);

/**
 * Filters of a content list: `q` full-text search; `status` `draft` or `published`; `where`
 * field conditions and `sort` keys in the list language of `{% list %}`
 * (`where: "year >= 2000 and tags contains 'sf'"`, `sort: '-year,title'`).
 */
export type ContentFilter = Pick<ContentListQuery, 'q' | 'status' | 'where' | 'sort'>;

/** A page of a content list (`limit`: items per page, at most 1000). */
export type ContentPageQuery = Omit<ContentListQuery, 'withMeta'>;

/** Options of {@link ContentApi.iterate}. */
export interface IterateOptions extends ContentFilter, CallOptions {
  /** Items fetched per request. Default 100. */
  pageSize?: number;
}

/** Content items of the client's site (site-scoped). Item ids are full ids: `<type>:<slug>`. */
export function createContentApi(transport: Transport) {
  const itemPath = (type: string, id: string) => path('content', type, id);
  const api = {
    /** GET /api/content/{type}: the items as a bare array (all of them unless `limit` is given). */
    list: (type: string, query: ContentPageQuery = {}, options: CallOptions = {}): Promise<ContentRecord[]> =>
      transport.request({
        method: 'get',
        path: path('content', type),
        schema: ContentRecordList,
        query: { ...query },
        ...options,
      }),
    /** GET /api/content/{type}?withMeta=1: one page with `total` (the count of every match). */
    page: (
      type: string,
      query: ContentPageQuery = {},
      options: CallOptions = {},
    ): Promise<ContentListEnvelope> =>
      transport.request({
        method: 'get',
        path: path('content', type),
        schema: ContentListEnvelope,
        query: { ...query, withMeta: 1 },
        ...options,
      }),
    /**
     * Every matching item, fetched `pageSize` at a time with `withMeta`/`limit`/`offset`:
     * `for await (const item of site.content.iterate('post')) …`.
     */
    iterate: async function* (type: string, options: IterateOptions = {}): AsyncGenerator<ContentRecord> {
      const { pageSize = 100, q, status, where, sort, ...callOptions } = options;
      if (!Number.isInteger(pageSize) || pageSize < 1)
        throw new RangeError('pageSize must be a positive integer');
      let offset = 0;
      for (;;) {
        const page = await api.page(type, { limit: pageSize, offset, q, status, where, sort }, callOptions);
        for (const item of page.items) yield item;
        offset += page.items.length;
        if (page.items.length === 0 || offset >= page.total) return;
      }
    },
    /** GET /api/content/{type}/{id} */
    get: (type: string, id: string, options: CallOptions = {}): Promise<ContentRecord> =>
      transport.request({ method: 'get', path: itemPath(type, id), schema: ContentRecord, ...options }),
    /** POST /api/content/{type}: `{fields, relationships?}` or a free-form object of fields. */
    create: (
      type: string,
      body: z.input<typeof CreateContentBody>,
      options: CallOptions = {},
    ): Promise<ContentRecord> =>
      transport.request({
        method: 'post',
        path: path('content', type),
        schema: ContentRecord,
        json: body,
        ...options,
      }),
    /** PATCH /api/content/{type}/{id}: given fields replace the stored ones. */
    update: (
      type: string,
      id: string,
      body: z.input<typeof UpdateContentBody>,
      options: CallOptions = {},
    ): Promise<ContentRecord> =>
      transport.request({
        method: 'patch',
        path: itemPath(type, id),
        schema: ContentRecord,
        json: body,
        ...options,
      }),
    /** DELETE /api/content/{type}/{id} (204). */
    delete: async (type: string, id: string, options: CallOptions = {}): Promise<void> => {
      await transport.send({ method: 'delete', path: itemPath(type, id), ...options });
    },
    /**
     * POST /api/content/{type}/{id}/publish: puts the item's head version live in the
     * environment (`env`; the server's default is the lowest-order environment above dev,
     * `prod`) and sets status `published`; `expectedVersion` guards against a concurrent
     * write (409).
     */
    publish: (
      type: string,
      id: string,
      body: z.input<typeof PublishContentBody> = {},
      options: CallOptions = {},
    ): Promise<ContentRecord> =>
      transport.request({
        method: 'post',
        path: `${itemPath(type, id)}/publish`,
        schema: ContentRecord,
        json: body,
        ...options,
      }),
    /**
     * POST /api/content/{type}/{id}/unpublish: takes the item out of the environment's live
     * state (`env`, the same default as publish). The item and its versions stay.
     */
    unpublish: (
      type: string,
      id: string,
      body: Pick<z.input<typeof PublishContentBody>, 'env'> = {},
      options: CallOptions = {},
    ): Promise<ContentRecord> =>
      transport.request({
        method: 'post',
        path: `${itemPath(type, id)}/unpublish`,
        schema: ContentRecord,
        json: body,
        ...options,
      }),
    /**
     * POST /api/publish: puts many items live in one environment at their head versions, in one
     * transaction and one live revision. Name them by `ids`, or by `type` (narrowed by `status`
     * and full-text `q`).
     */
    publishMany: (
      body: z.input<typeof BulkPublishBody>,
      options: CallOptions = {},
    ): Promise<BulkPublishResponse> =>
      transport.request({
        method: 'post',
        path: 'publish',
        schema: BulkPublishResponse,
        json: body,
        ...options,
      }),
    /** POST /api/unpublish: takes many items out of one environment, like {@link publishMany}. */
    unpublishMany: (
      body: z.input<typeof BulkPublishBody>,
      options: CallOptions = {},
    ): Promise<BulkPublishResponse> =>
      transport.request({
        method: 'post',
        path: 'unpublish',
        schema: BulkPublishResponse,
        json: body,
        ...options,
      }),
    /** GET /api/content/{type}/{id}/versions: the item's recorded versions, newest first. */
    versions: (type: string, id: string, options: CallOptions = {}): Promise<ItemVersion[]> =>
      transport.request({
        method: 'get',
        path: `${itemPath(type, id)}/versions`,
        schema: ItemVersionList,
        ...options,
      }),
    /** GET /api/content/{type}/{id}/versions/{version}: one recorded version. */
    version: (type: string, id: string, version: number, options: CallOptions = {}): Promise<ItemVersion> =>
      transport.request({
        method: 'get',
        path: `${itemPath(type, id)}/versions/${version}`,
        schema: ItemVersion,
        ...options,
      }),
    /** POST /api/content/{type}/{id}/blocks: appends a block to the item's body. */
    appendBlock: (
      type: string,
      id: string,
      block: z.input<typeof AppendBlockBody>,
      options: CallOptions = {},
    ): Promise<BlockChangeResponse> =>
      transport.request({
        method: 'post',
        path: `${itemPath(type, id)}/blocks`,
        schema: BlockChangeResponse,
        json: block,
        ...options,
      }),
    /** DELETE /api/content/{type}/{id}/blocks/{bid}: removes a block. */
    removeBlock: (
      type: string,
      id: string,
      blockId: string,
      options: CallOptions = {},
    ): Promise<BlockChangeResponse> =>
      transport.request({
        method: 'delete',
        path: `${itemPath(type, id)}/blocks/${encodeURIComponent(blockId)}`,
        schema: BlockChangeResponse,
        ...options,
      }),
  };
  return api;
}
export type ContentApi = ReturnType<typeof createContentApi>;
