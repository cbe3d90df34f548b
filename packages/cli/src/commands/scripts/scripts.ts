import type { CreateScriptBody, Script, ScriptEvent, UpdateScriptBody } from '@trelliscms/core';
import { ExitCode, UsageError } from '../../errors';
import { table } from '../../io/output';
import { readJsonFile, readText } from '../../io/read-json-file';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** The options of `cms scripts create|update` (the source comes from `--file`). */
export interface ScriptOptions {
  file?: string;
  event?: ScriptEvent;
  type?: string;
  timeout?: number;
  memory?: number;
  description?: string;
  enable?: boolean;
}

/** `cms scripts list` */
export async function scriptsList({ site, out }: Deps): Promise<number> {
  const scripts = await site.scripts.list();
  out.result(
    scripts.map(({ source: _source, ...meta }) => meta),
    () => table(scripts, ['name', 'event', 'type', 'enabled', 'timeoutMs', 'memoryMb']),
  );
  return ExitCode.ok;
}

/** `cms scripts show <name>`: its settings, then its source. */
export async function scriptsShow({ site, out, name }: Deps & { name: string }): Promise<number> {
  const script = await site.scripts.get(name);
  out.result(script, () => [
    `${script.name}: ${script.event ?? 'manual'} for ${script.type ?? 'every type'}, ${
      script.enabled === false ? 'disabled' : 'enabled'
    }, ${script.timeoutMs ?? 1000} ms, ${script.memoryMb ?? 16} MB`,
    ...(script.description ? [script.description] : []),
    '',
    script.source,
  ]);
  return ExitCode.ok;
}

function settingsOf(options: ScriptOptions): Partial<CreateScriptBody> {
  return {
    ...(options.event !== undefined ? { event: options.event } : {}),
    ...(options.type !== undefined ? { type: options.type === '*' ? null : options.type } : {}),
    ...(options.timeout !== undefined ? { timeoutMs: options.timeout } : {}),
    ...(options.memory !== undefined ? { memoryMb: options.memory } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.enable !== undefined ? { enabled: options.enable } : {}),
  };
}

function describe(script: Script): string {
  return `${script.name} (${script.event ?? 'manual'}${script.type ? ` for ${script.type}` : ''})`;
}

/** `cms scripts create <name> --file hook.js [--event ...]` */
export async function scriptsCreate({
  site,
  out,
  io,
  name,
  options,
}: SiteCommandDeps & { name: string; options: ScriptOptions }): Promise<number> {
  if (!options.file) throw new UsageError('Give the script’s source with --file <path.js>');
  const source = await readText(io.fs, io.cwd, options.file);
  const script = await site.scripts.create({ name, source, ...settingsOf(options) });
  out.result(script, () => `Created script ${describe(script)}.`);
  return ExitCode.ok;
}

/** `cms scripts update <name> [--file hook.js] [--event ...]`: the given settings replace the stored ones. */
export async function scriptsUpdate({
  site,
  out,
  io,
  name,
  options,
}: SiteCommandDeps & { name: string; options: ScriptOptions }): Promise<number> {
  const patch: UpdateScriptBody = settingsOf(options);
  if (options.file) patch.source = await readText(io.fs, io.cwd, options.file);
  if (Object.keys(patch).length === 0) {
    throw new UsageError(
      'Nothing to update: give --file, --event, --type, --timeout, --memory, --description, --enable or --disable',
    );
  }
  const script = await site.scripts.update(name, patch);
  out.result(script, () => `Updated script ${describe(script)}.`);
  return ExitCode.ok;
}

/** `cms scripts rm <name> [--cascade]` */
export async function scriptsDelete({
  site,
  out,
  name,
  cascade,
}: Deps & { name: string; cascade: boolean }): Promise<number> {
  await site.scripts.delete(name, { cascade });
  out.result({ ok: true, name, cascade }, () =>
    cascade ? `Deleted script ${name} and the transforms that run it.` : `Deleted script ${name}.`,
  );
  return ExitCode.ok;
}

/**
 * `cms scripts test <name> [--input file.json]`: a dry run in the server's sandbox. Exits 0 when
 * the script returned, 1 when it refused or was stopped (the message on stderr).
 */
export async function scriptsTest({
  site,
  out,
  io,
  name,
  input,
}: SiteCommandDeps & { name: string; input?: string }): Promise<number> {
  let given: Record<string, unknown> | undefined;
  if (input !== undefined) {
    const value = await readJsonFile(io.fs, io.cwd, input);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError(`${input} must hold a JSON object (e.g. {"item": {"fields": {...}}})`);
    }
    given = value as Record<string, unknown>;
  }
  const result = await site.scripts.test(name, given);
  out.result(result, () => [
    ...result.logs.map((line) => `log: ${line}`),
    result.status === 'ok'
      ? `ok (${result.durationMs} ms): ${JSON.stringify(result.value ?? null, null, 2)}`
      : `${result.status}${result.reason ? ` (${result.reason})` : ''} after ${result.durationMs} ms: ${result.message}`,
  ]);
  return result.status === 'ok' ? ExitCode.ok : ExitCode.apiError;
}
