export * from './errors';
export * from './hash';
export * from './schemas';
export * from './publishing';
export * from './content';
