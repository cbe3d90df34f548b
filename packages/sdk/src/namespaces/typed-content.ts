import type { ContentListEnvelope, ContentRecord } from '@trelliscms/core';
import type { CallOptions } from '../http/transport';
import type { ContentApi, ContentPageQuery, IterateOptions } from './content';

/**
 * A site's content types as TypeScript types, by type name: an item's `fields` as read, its
 * `input` (the fields a create gives) and its `relationships` (target ids). `cms sdk generate`
 * (GET /api/sdk/types.d.ts) writes one as `ContentTypes`.
 */
export type ContentTypeMap = {
  [type: string]: { fields: object; input: object; relationships: object };
};

/** An item of type `K`: a {@link ContentRecord} whose `fields` and `relationships` are typed. */
export type TypedContentRecord<M extends ContentTypeMap, K extends keyof M & string> = Omit<
  ContentRecord,
  'type' | 'fields' | 'relationships'
> & {
  type: K;
  fields: M[K]['fields'];
  relationships?: Partial<M[K]['relationships']>;
};

/** The relationships a write gives: target ids, or null to remove them. */
type RelationshipsWrite<M extends ContentTypeMap, K extends keyof M> = {
  [R in keyof M[K]['relationships']]?: M[K]['relationships'][R] | null;
};

/** POST /api/content/{type} with typed fields (the explicit `{fields, relationships}` form). */
export interface TypedCreateBody<M extends ContentTypeMap, K extends keyof M> {
  fields: M[K]['input'];
  relationships?: RelationshipsWrite<M, K>;
}

/** PATCH /api/content/{type}/{id} with typed fields: the given ones replace the stored ones. */
export interface TypedUpdateBody<M extends ContentTypeMap, K extends keyof M> {
  fields?: Partial<M[K]['input']>;
  relationships?: RelationshipsWrite<M, K>;
  expectedVersion?: number;
}

type Typed = 'list' | 'page' | 'iterate' | 'get' | 'create' | 'update' | 'publish' | 'unpublish';

/**
 * The content namespace typed by a site's {@link ContentTypeMap}: the same requests as
 * {@link ContentApi}, with the type name checked and the items' fields typed.
 */
export interface TypedContentApi<M extends ContentTypeMap> extends Omit<ContentApi, Typed> {
  list<K extends keyof M & string>(
    type: K,
    query?: ContentPageQuery,
    options?: CallOptions,
  ): Promise<TypedContentRecord<M, K>[]>;
  page<K extends keyof M & string>(
    type: K,
    query?: ContentPageQuery,
    options?: CallOptions,
  ): Promise<Omit<ContentListEnvelope, 'items'> & { items: TypedContentRecord<M, K>[] }>;
  iterate<K extends keyof M & string>(
    type: K,
    options?: IterateOptions,
  ): AsyncGenerator<TypedContentRecord<M, K>>;
  get<K extends keyof M & string>(
    type: K,
    id: string,
    options?: CallOptions,
  ): Promise<TypedContentRecord<M, K>>;
  create<K extends keyof M & string>(
    type: K,
    body: TypedCreateBody<M, K>,
    options?: CallOptions,
  ): Promise<TypedContentRecord<M, K>>;
  update<K extends keyof M & string>(
    type: K,
    id: string,
    body: TypedUpdateBody<M, K>,
    options?: CallOptions,
  ): Promise<TypedContentRecord<M, K>>;
  publish<K extends keyof M & string>(
    type: K,
    id: string,
    body?: Parameters<ContentApi['publish']>[2],
    options?: CallOptions,
  ): Promise<TypedContentRecord<M, K>>;
  unpublish<K extends keyof M & string>(
    type: K,
    id: string,
    body?: Parameters<ContentApi['unpublish']>[2],
    options?: CallOptions,
  ): Promise<TypedContentRecord<M, K>>;
}
