/**
 * `@trelliscms/core/build`: the pure helpers a build (and its render workers) needs — route
 * patterns, artifact dependencies, incremental planning and content hashing — without loading
 * the contract's zod schemas.
 */
export * from './hash/index';
export * from './publishing/index';
