import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import { AnyObject, AnyObjectOrList } from '../schemas';
import type { Json } from './releases';

/** Media assets of the client's site (site-scoped). */
export function createMediaApi(transport: Transport) {
  return {
    /** GET /api/media: assets newest first, filtered by a file-name substring `q`. */
    list: (query: { q?: string } = {}, options: CallOptions = {}): Promise<Json[] | Json> =>
      transport.request({ method: 'get', path: 'media', schema: AnyObjectOrList, query, ...options }),
    /** GET /api/media?countOnly=1: `{total}`. */
    count: (query: { q?: string } = {}, options: CallOptions = {}): Promise<Json> =>
      transport.request({
        method: 'get',
        path: 'media',
        schema: AnyObject,
        query: { ...query, countOnly: 1 },
        ...options,
      }),
    /** POST /api/media/upload: uploads one file (images, videos, PDFs; 25 MB at most). */
    upload: (file: Blob, filename: string, options: CallOptions = {}): Promise<Json> => {
      const form = new FormData();
      form.set('file', file, filename);
      return transport.request({
        method: 'post',
        path: 'media/upload',
        schema: AnyObject,
        body: form,
        ...options,
      });
    },
    /** DELETE /api/media/{id}: removes the asset and its file. */
    delete: (id: string, options: CallOptions = {}): Promise<Json | undefined> =>
      transport.request({
        method: 'delete',
        path: path('media', id),
        schema: AnyObject.optional(),
        ...options,
      }),
    /** GET /api/media/stock: stock photos from `provider`, normalized. */
    stock: (
      query: { provider: 'pexels' | 'unsplash' | 'pixabay'; q?: string; orientation?: string },
      options: CallOptions = {},
    ): Promise<Json> =>
      transport.request({ method: 'get', path: 'media/stock', schema: AnyObject, query, ...options }),
  };
}
export type MediaApi = ReturnType<typeof createMediaApi>;
