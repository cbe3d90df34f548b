export * from './content';
export * from './errors';
export * from './hash';
export * from './ids';
export * from './publishing';
export * from './release';
export * from './schemas';
