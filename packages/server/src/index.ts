export { type Config, ConfigError, ConfigSchema, loadConfig } from './config';
export { createEngine } from './engines';
export * from './engines/port';
export { type BuildAppOptions, buildApp } from './http/app';
