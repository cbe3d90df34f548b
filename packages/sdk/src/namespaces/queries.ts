import {
  type CreateSavedQueryBody,
  type RunQueryBody,
  RunQueryResponse,
  SavedQuery,
  SavedQueryList,
  type UpdateSavedQueryBody,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import { createResourceApi, type ResourceApi } from './resource';

/**
 * Saved queries of the client's site: `/api/queries`, keyed by name (docs/queries.md for the
 * query language), and `run`.
 */
export interface QueriesApi
  extends ResourceApi<
    SavedQuery,
    z.input<typeof CreateSavedQueryBody>,
    z.input<typeof UpdateSavedQueryBody>
  > {
  /**
   * POST /api/queries/{name}/run: the query's rows with these parameter values (checked against
   * the declared types: 400 `invalid_query_params`); `limit`/`offset` replace the query's.
   * 504 `query_timeout` when it runs past the server's query timeout.
   */
  run(name: string, body?: z.input<typeof RunQueryBody>, options?: CallOptions): Promise<RunQueryResponse>;
}

export function createQueriesApi(transport: Transport): QueriesApi {
  return {
    ...createResourceApi<
      typeof SavedQuery,
      typeof SavedQueryList,
      z.input<typeof CreateSavedQueryBody>,
      z.input<typeof UpdateSavedQueryBody>
    >({ transport, base: 'queries', item: SavedQuery, list: SavedQueryList }),
    run: (name, body = {}, options = {}) =>
      transport.request({
        method: 'post',
        path: `${path('queries', name)}/run`,
        schema: RunQueryResponse,
        json: body,
        ...options,
      }),
  };
}
