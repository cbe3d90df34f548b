import {
  MediaAsset,
  MediaAssetList,
  MediaCount,
  type StockImportBody,
  StockResponse,
} from '@trelliscms/core';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import type { DeleteQuery } from './resource';

/** Media assets of the client's site (site-scoped). */
export function createMediaApi(transport: Transport) {
  return {
    /** GET /api/media: assets newest first; `q` filters by a file-name substring. */
    list: (query: { q?: string } = {}, options: CallOptions = {}): Promise<MediaAsset[]> =>
      transport.request({ method: 'get', path: 'media', schema: MediaAssetList, query, ...options }),
    /** GET /api/media?countOnly=1: how many assets match. */
    count: async (query: { q?: string } = {}, options: CallOptions = {}): Promise<number> => {
      const answer = await transport.request({
        method: 'get',
        path: 'media',
        schema: MediaCount,
        query: { ...query, countOnly: 1 },
        ...options,
      });
      return answer.total;
    },
    /** POST /api/media/upload: one file (images, videos, PDFs; 25 MB at most), de-duplicated by SHA-256. */
    upload: (file: Blob, filename: string, options: CallOptions = {}): Promise<MediaAsset> => {
      const form = new FormData();
      form.set('file', file, filename);
      return transport.request({
        method: 'post',
        path: 'media/upload',
        schema: MediaAsset,
        body: form,
        ...options,
      });
    },
    /**
     * DELETE /api/media/{id}: removes the asset and its file (204). An asset items show is a
     * 409 `in_use` naming them (`error.body.holders`); `cascade` clears it from their image
     * fields first (not from a required field, nor from a version live somewhere).
     */
    delete: async (id: string, query: DeleteQuery = {}, options: CallOptions = {}): Promise<void> => {
      await transport.send({
        method: 'delete',
        path: path('media', id),
        query: query.cascade ? { cascade: 1 } : {},
        ...options,
      });
    },
    /**
     * GET /api/media/stock: stock photos from `provider`, normalised (the server holds the
     * provider keys); `page` from 1, `perPage` at most 80.
     */
    stock: (
      query: {
        provider: 'pexels' | 'unsplash' | 'pixabay';
        q: string;
        orientation?: 'landscape' | 'portrait' | 'square';
        page?: number;
        perPage?: number;
      },
      options: CallOptions = {},
    ): Promise<StockResponse> =>
      transport.request({ method: 'get', path: 'media/stock', schema: StockResponse, query, ...options }),
    /**
     * POST /api/media/stock/import: stores a stock photo (by the `id` a search answered) as a
     * media asset with its `credit`; the same file stored before answers that asset.
     */
    stockImport: (body: StockImportBody, options: CallOptions = {}): Promise<MediaAsset> =>
      transport.request({
        method: 'post',
        path: 'media/stock/import',
        schema: MediaAsset,
        json: body,
        ...options,
      }),
  };
}
export type MediaApi = ReturnType<typeof createMediaApi>;
