export { type BuildAppOptions, buildApp } from './app';
export { type Config, ConfigError, ConfigSchema, loadConfig } from './config';
export { createEngine } from './engines';
export * from './engines/port';
