export * from './errors';
export * from './hash';
export * from './schemas';
export * from './content';
