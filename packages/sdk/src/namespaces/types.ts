import {
  ContentType,
  type ContentTypeSummary,
  ContentTypeSummaryList,
  type CreateContentTypeBody,
  type UpdateContentTypeBody,
} from '@trelliscms/core';
import type { z } from 'zod';
import { isApiError } from '../errors/api-error';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import type { DeleteQuery } from './resource';

/** What {@link TypesApi.apply} did. */
export interface ApplyTypeResult {
  action: 'created' | 'updated';
  type: ContentType;
}

/** Content types of the client's site (site-scoped). */
export function createTypesApi(transport: Transport) {
  const api = {
    /** GET /api/types: summaries of every type. */
    list: (options: CallOptions = {}): Promise<ContentTypeSummary[]> =>
      transport.request({ method: 'get', path: 'types', schema: ContentTypeSummaryList, ...options }),
    /** GET /api/types/{name}: the full definition. */
    get: (name: string, options: CallOptions = {}): Promise<ContentType> =>
      transport.request({ method: 'get', path: path('types', name), schema: ContentType, ...options }),
    /** POST /api/types: creates a type. */
    create: (
      definition: z.input<typeof CreateContentTypeBody>,
      options: CallOptions = {},
    ): Promise<ContentType> =>
      transport.request({ method: 'post', path: 'types', schema: ContentType, json: definition, ...options }),
    /** PATCH /api/types/{name}: the given keys replace the stored ones. */
    update: (
      name: string,
      patch: z.input<typeof UpdateContentTypeBody>,
      options: CallOptions = {},
    ): Promise<ContentType> =>
      transport.request({
        method: 'patch',
        path: path('types', name),
        schema: ContentType,
        json: patch,
        ...options,
      }),
    /**
     * DELETE /api/types/{name} (204). A type with items, or named by other definitions, is a
     * 409 `in_use` naming them (`error.body.holders`); `cascade` deletes its items with it.
     */
    delete: async (name: string, query: DeleteQuery = {}, options: CallOptions = {}): Promise<void> => {
      await transport.send({
        method: 'delete',
        path: path('types', name),
        query: query.cascade ? { cascade: 1 } : {},
        ...options,
      });
    },
    /**
     * Makes the site's type match `definition`: creates it when it does not exist (404),
     * otherwise PATCHes it with the whole definition. Safe to run again.
     */
    apply: async (
      definition: z.input<typeof CreateContentTypeBody>,
      options: CallOptions = {},
    ): Promise<ApplyTypeResult> => {
      try {
        await api.get(definition.name, options);
      } catch (error) {
        if (isApiError(error) && error.status === 404) {
          return { action: 'created', type: await api.create(definition, options) };
        }
        throw error;
      }
      const { name: _name, ...patch } = definition;
      return { action: 'updated', type: await api.update(definition.name, patch, options) };
    },
  };
  return api;
}
export type TypesApi = ReturnType<typeof createTypesApi>;
