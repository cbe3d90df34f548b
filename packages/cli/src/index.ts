export { type ConfigFile, configPath, type Profile, readConfig, writeConfig } from './config/profiles';
export { type Connection, type GlobalFlags, resolveConnection } from './config/resolve-connection';
export { renderCliReference } from './docs/cli-reference';
export { ExitCode, exitCodeOf, formatError, UsageError } from './errors';
export type { CliIo, Fs, TextSink } from './io/cli-io';
export { createProgram, run } from './program';
