export * from './sortable-id';
