import { resolve } from 'node:path';
import fastifyMultipart from '@fastify/multipart';
import {
  DeleteQuery,
  MAX_MEDIA_BYTES,
  MediaAsset,
  MediaAssetList,
  MediaCount,
  MediaFileParams,
  MediaListQuery,
  MediaParams,
  StockImportBody,
  StockQuery,
  StockResponse,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { mediaFilesFor } from '../media-files';
import { deleteAsset, listAssets, saveAsset } from '../media-store';
import { mimetypeOfExtension } from '../sniff-media-type';
import { downloadStockPhoto, findStockPhoto, searchStock } from '../stock-search';

/** `.jpg` for `https://…/photo.jpeg?w=…`; empty when the URL's path names no image extension. */
function extensionOf(url: string): string {
  const match = /\.(jpe?g|png|webp|gif|avif)$/i.exec(new URL(url).pathname);
  return match ? `.${match[1]!.toLowerCase().replace('jpeg', 'jpg')}` : '';
}

const errors = errorResponses(400, 401, 403, 404, 409, 413, 502);

/**
 * Errors met while reading an upload, mapped to the codes of docs/api-spec.md §7. Everything
 * else thrown while the parts are read is the body's fault — no boundary, cut short, garbled
 * (busboy's errors, @fastify/multipart's premature close) — and a 400 `malformed_multipart`.
 */
function fromMultipartError(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE')
    return TrellisError.of('media_too_large', { limit: MAX_MEDIA_BYTES });
  if (
    code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' ||
    code === 'FST_FILES_LIMIT' ||
    code === 'FST_FIELDS_LIMIT' ||
    code === 'FST_PARTS_LIMIT'
  ) {
    return TrellisError.of('validation_failed', {
      detail: 'send multipart/form-data with exactly one file in the field `file`',
    });
  }
  if (error instanceof TrellisError) return error;
  // busboy's messages ("Unexpected end of form", "Multipart: Boundary not found") name the fault.
  const message = error instanceof Error ? error.message.slice(0, 200) : 'unreadable body';
  return TrellisError.of('malformed_multipart', { detail: message });
}

/**
 * Spec §4 Media (site-scoped) and the public file route `GET /media/assets/{sha}.{ext}`.
 * Uploads are typed by their magic bytes (images, videos, PDFs), at most 25 MB, stored once
 * per content under `CMS_DATA_DIR/media/assets/<sha256>.<ext>`, or in the S3 bucket with
 * `CMS_STORAGE=s3` (media-files.ts).
 */
export const mediaRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(fastifyMultipart, {
    limits: { fileSize: MAX_MEDIA_BYTES, files: 1, fields: 10, parts: 11 },
    throwFileSizeLimit: true,
  });
  const dataDir = resolve(app.trellis.config.CMS_DATA_DIR);
  // The data folder, or the bucket with CMS_STORAGE=s3 (any server behind it serves every file).
  const files = mediaFilesFor(app.trellis.objectStore, dataDir);

  app.post(
    '/api/media/upload',
    {
      schema: {
        tags: ['media'],
        summary: 'Upload an image, video or PDF (multipart field `file`, at most 25 MB)',
        description:
          'The type is read from the content (magic bytes), not from the declared mimetype: 400 `media_type_not_allowed` otherwise; 413 `media_too_large` over 25 MB. The sha256 of the content names the file and de-duplicates: the same content uploaded again answers 200 with the stored asset.',
        consumes: ['multipart/form-data'],
        response: { 200: MediaAsset, 201: MediaAsset, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw fromMultipartError({ code: 'FST_INVALID_MULTIPART_CONTENT_TYPE' });
      let content: Buffer | null = null;
      let filename: string | undefined;
      try {
        for await (const part of request.parts()) {
          if (part.type !== 'file') continue;
          if (part.fieldname !== 'file' || content !== null) {
            await part.toBuffer();
            continue;
          }
          filename = part.filename;
          content = await part.toBuffer();
        }
      } catch (error) {
        throw fromMultipartError(error);
      }
      if (content === null) {
        throw TrellisError.of('media_type_not_allowed', { detail: 'no file was sent in the field `file`' });
      }
      const { asset, created } = await saveAsset({
        files,
        graph: siteOf(request).graph,
        dataDir,
        content,
        filename,
        actor: actorOf(request.principal!),
        now: app.trellis.clock.now(),
      });
      return reply.status(created ? 201 : 200).send(asset);
    },
  );

  app.get(
    '/api/media',
    {
      schema: {
        tags: ['media'],
        summary:
          'Media assets, newest first (`q`: file-name substring; `limit` default 100, `offset`; `countOnly=1`: `{total}`; `X-Total-Count` counts every match)',
        querystring: MediaListQuery,
        response: { 200: z.union([MediaAssetList, MediaCount]), ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const { q, countOnly, limit, offset } = request.query;
      const page = await listAssets(siteOf(request).graph, {
        q,
        limit: countOnly ? 1 : (limit ?? 100),
        offset: offset ?? 0,
      });
      withTotal(reply, page.total);
      return countOnly ? { total: page.total } : page.assets;
    },
  );

  app.delete(
    '/api/media/:id',
    {
      schema: {
        tags: ['media'],
        summary: 'Delete an asset and its file',
        description:
          '204 when no item shows it. 409 `in_use` naming the items whose image fields show it, or whose version live in an environment does (`holders`). With `?cascade=1` those image fields are cleared (a new version of each item) and the asset deleted, in one transaction; an item whose field is required, or whose live version shows the asset, still refuses it (publish a version without it, or unpublish, first). The file stays while another site holds the same content.',
        params: MediaParams,
        querystring: DeleteQuery,
        response: { 204: z.null().describe('Deleted'), ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      await deleteAsset({
        files,
        graph: siteOf(request).graph,
        engine: app.trellis.engine,
        platform: app.trellis.platform,
        dataDir,
        id: request.params.id,
        cascade: request.query.cascade === true,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/media/stock',
    {
      schema: {
        tags: ['media'],
        summary: 'Search stock photos (Pexels, Unsplash, Pixabay)',
        description:
          "Asks the provider's own API with the key the server holds (PEXELS_API_KEY, UNSPLASH_ACCESS_KEY, PIXABAY_API_KEY) and normalises its answer; `page` (from 1) and `perPage` (default 20, at most 80) page it. A provider without a key is asked through STOCK_PROVIDER_URL when that is set (an endpoint answering `{items}` itself). Without either, or when the provider fails, 502 `stock_provider_unavailable` with a hint — never made-up results.",
        querystring: StockQuery,
        response: { 200: StockResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) =>
      searchStock({ config: app.trellis.config, query: request.query, outbound: app.trellis.outbound }),
  );

  app.post(
    '/api/media/stock/import',
    {
      schema: {
        tags: ['media'],
        summary: 'Import a stock photo as a media asset',
        description:
          "Looks the photo up by `id` in the provider's API (its key must be configured), fetches its full-size file through the server's guarded fetcher (the file's host must be public or in CMS_OUTBOUND_ALLOW) and stores it as an upload is stored, with `credit` (photographer, page, licence). 201 with the asset; 200 when the same file was stored before. 404 `not_found` for an id the provider does not know; 502 `stock_provider_unavailable` when the provider or the file fails.",
        body: StockImportBody,
        response: { 200: MediaAsset, 201: MediaAsset, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      const { provider, id, filename } = request.body;
      const photo = await findStockPhoto({
        config: app.trellis.config,
        provider,
        id,
        outbound: app.trellis.outbound,
      });
      const content = await downloadStockPhoto({
        photo,
        outbound: app.trellis.outbound,
        timeoutMs: app.trellis.config.CMS_OUTBOUND_TIMEOUT_MS,
      });
      const { asset, created } = await saveAsset({
        files,
        graph: siteOf(request).graph,
        dataDir,
        content,
        // The type (and so the extension) comes from the content; the name only shows.
        filename: filename ?? `${provider}-${id}${extensionOf(photo.downloadUrl)}`,
        actor: actorOf(request.principal!),
        now: app.trellis.clock.now(),
        credit: photo.credit,
      });
      return reply.status(created ? 201 : 200).send(asset);
    },
  );

  app.get(
    '/media/assets/:sha.:ext',
    {
      schema: {
        tags: ['media'],
        summary: 'A stored media file (public)',
        params: MediaFileParams,
        response: {
          200: z.any().describe('The file, with its media type; `ETag` is its sha256'),
          304: z.null().describe('Not modified: `If-None-Match` names the file’s `ETag`'),
          ...errorResponses(400, 404),
        },
        security: [],
      },
      config: { siteScope: 'none', public: true },
    },
    async (request, reply) => {
      const { sha, ext } = request.params;
      const mimetype = mimetypeOfExtension(ext);
      // sha and ext are validated to hex and alphanumerics, so the name cannot leave the folder
      // (or the key prefix).
      const file = mimetype ? await files.get(`${sha}.${ext.toLowerCase()}`) : null;
      if (!mimetype || !file) {
        throw TrellisError.of('not_found', { resource: `Media file \`${sha}.${ext}\`` });
      }
      // The name is the sha256 of the bytes: a strong tag that never changes, whichever store.
      const etag = `"${sha.toLowerCase()}"`;
      const wanted = request.headers['if-none-match'];
      if (
        wanted &&
        (wanted.trim() === '*' || wanted.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))
      ) {
        // Not sent: let go of the file (or the object's connection).
        (file.body as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
        return reply
          .code(304)
          .header('etag', etag)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .send();
      }
      return reply
        .header('etag', etag)
        .header('content-type', mimetype)
        .header('content-length', file.bytes)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(file.body);
    },
  );
};
