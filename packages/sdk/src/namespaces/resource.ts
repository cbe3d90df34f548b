import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';

/** What a delete that can cascade takes: `cascade` also removes what the resource documents. */
export interface DeleteQuery {
  /**
   * Also remove (or clear) what holds the resource, where it documents a cascade (e.g. the
   * redirects to a route, the transforms that run a script). Without it a held resource is a
   * 409 `in_use` whose body names the holders (`error.body.holders`).
   */
  cascade?: boolean;
}

/** The four operations docs/api-spec.md §4 gives each "other" site-scoped namespace, and delete. */
export interface ResourceApi<Item, CreateInput, UpdateInput> {
  /** GET /api/{resource} */
  list(options?: CallOptions): Promise<Item[]>;
  /** GET /api/{resource}/{key} */
  get(key: string, options?: CallOptions): Promise<Item>;
  /** POST /api/{resource} */
  create(body: CreateInput, options?: CallOptions): Promise<Item>;
  /** PATCH (or PUT) /api/{resource}/{key}: the given keys replace the stored ones. */
  update(key: string, body: UpdateInput, options?: CallOptions): Promise<Item>;
  /** DELETE /api/{resource}/{key} (204); 409 `in_use` naming what holds it unless `cascade` covers it. */
  delete(key: string, query?: DeleteQuery, options?: CallOptions): Promise<void>;
}

/** Builds a {@link ResourceApi} for `/api/<base>` whose items parse with `item`. */
export function createResourceApi<S extends z.ZodType, L extends z.ZodType<z.output<S>[]>, C, U>({
  transport,
  base,
  item,
  list,
  updateMethod = 'patch',
}: {
  transport: Transport;
  base: string;
  item: S;
  list: L;
  updateMethod?: 'patch' | 'put';
}): ResourceApi<z.output<S>, C, U> {
  return {
    list: (options = {}) => transport.request({ method: 'get', path: base, schema: list, ...options }),
    get: (key, options = {}) =>
      transport.request({ method: 'get', path: path(base, key), schema: item, ...options }),
    create: (body, options = {}) =>
      transport.request({ method: 'post', path: base, schema: item, json: body, ...options }),
    update: (key, body, options = {}) =>
      transport.request({
        method: updateMethod,
        path: path(base, key),
        schema: item,
        json: body,
        ...options,
      }),
    delete: async (key, query = {}, options = {}) => {
      await transport.send({
        method: 'delete',
        path: path(base, key),
        query: query.cascade ? { cascade: 1 } : {},
        ...options,
      });
    },
  };
}
