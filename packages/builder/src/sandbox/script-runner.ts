import variant from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSWASMModule,
  shouldInterruptAfterDeadline,
} from 'quickjs-emscripten-core';

/** ms a script may run, unless its own `timeoutMs` says otherwise. */
export const DEFAULT_SCRIPT_TIMEOUT_MS = 1000;
/** MB of memory a script's runtime may allocate, unless its own `memoryMb` says otherwise. */
export const DEFAULT_SCRIPT_MEMORY_MB = 16;
/** Bytes of native stack a script may use (deep recursion stops with `stack overflow` before this). */
export const SCRIPT_STACK_BYTES = 256 * 1024;

/** One run of a script: its source, the JSON it is given, and its limits. */
export interface ScriptJobInput {
  /** the script's name (for messages) */
  name: string;
  source: string;
  /** the JSON value the script receives as `input` (its `item`, `site`, `event`... as own names) */
  input: unknown;
  timeoutMs?: number;
  memoryMb?: number;
}

/**
 * What a script run gave:
 * - `ok`: `value` is what the script returned (JSON; null for nothing);
 * - `rejected`: the script threw, or returned `{error: "..."}`: `message` is its message;
 * - `stopped`: the sandbox stopped it (`reason` `timeout`, `memory` or `stack`): `message` says which limit.
 * `logs` are the lines it wrote with `console.log/info/warn/error` (at most 100).
 */
export type ScriptOutcome =
  | { status: 'ok'; value: unknown; logs: string[]; durationMs: number }
  | { status: 'rejected'; message: string; logs: string[]; durationMs: number }
  | {
      status: 'stopped';
      reason: 'timeout' | 'memory' | 'stack';
      message: string;
      logs: string[];
      durationMs: number;
    };

/** Runs a script synchronously in a fresh QuickJS runtime (see {@link loadScriptRunner}). */
export type ScriptRunner = (job: ScriptJobInput) => ScriptOutcome;

// The prelude gives the script `input`, its own keys as names, `console` (kept in the
// sandbox) and nothing else: QuickJS has no I/O of its own and no host function is exposed.
const PRELUDE = `"use strict";
const __logs = [];
const __log = (...args) => { if (__logs.length < 100) __logs.push(args.map((a) => typeof a === 'string' ? a : JSON.stringify(a)).join(' ').slice(0, 2000)); };
globalThis.console = { log: __log, info: __log, warn: __log, error: __log, debug: __log };
const __input = JSON.parse(globalThis.__json);
delete globalThis.__json;
`;

function wrap(source: string): string {
  return `${PRELUDE}
let __value;
try {
  __value = (function (input, item, site, event, build, page) {
${source}
  }).call(undefined, __input, __input.item, __input.site, __input.event, __input.build, __input.page);
  if (__value !== null && typeof __value === 'object' && typeof __value.error === 'string') {
    __value = { __rejected: __value.error };
  }
} catch (e) {
  if (e === null || (typeof e === 'object' && e.name === 'InternalError')) throw e;
  __value = { __rejected: e instanceof Error ? e.message : String(e) };
}
JSON.stringify({ value: __value === undefined ? null : __value, logs: __logs });
`;
}

let module: Promise<QuickJSWASMModule> | null = null;

/**
 * Loads QuickJS (compiled to WebAssembly; the `.wasm` ships inside its npm package) once per
 * thread and returns a {@link ScriptRunner}. Each run gets a new runtime with a memory limit,
 * a stack limit and an interrupt handler past its deadline, and is disposed after: nothing
 * one run leaves behind reaches the next. The script sees only the JSON it is given.
 */
export async function loadScriptRunner(): Promise<ScriptRunner> {
  module ??= newQuickJSWASMModuleFromVariant(variant);
  const quickjs = await module;
  return (job) => runScript(quickjs, job);
}

function runScript(quickjs: QuickJSWASMModule, job: ScriptJobInput): ScriptOutcome {
  const timeoutMs = job.timeoutMs ?? DEFAULT_SCRIPT_TIMEOUT_MS;
  const memoryMb = job.memoryMb ?? DEFAULT_SCRIPT_MEMORY_MB;
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const runtime = quickjs.newRuntime();
  try {
    runtime.setMemoryLimit(memoryMb * 1024 * 1024);
    runtime.setMaxStackSize(SCRIPT_STACK_BYTES);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeoutMs));
    const vm = runtime.newContext();
    try {
      const json = vm.newString(JSON.stringify(job.input ?? null));
      vm.setProp(vm.global, '__json', json);
      json.dispose();
      const result = vm.evalCode(wrap(job.source), `${job.name}.js`);
      if (result.error) {
        const error = vm.dump(result.error) as { name?: string; message?: string } | null;
        result.error.dispose();
        return failure(job.name, error, { timeoutMs, memoryMb }, took());
      }
      const text = vm.dump(result.value);
      result.value.dispose();
      const { value, logs } = JSON.parse(String(text)) as { value: unknown; logs: string[] };
      if (value !== null && typeof value === 'object' && '__rejected' in value) {
        return { status: 'rejected', message: String(value.__rejected), logs, durationMs: took() };
      }
      return { status: 'ok', value, logs, durationMs: took() };
    } finally {
      vm.dispose();
    }
  } catch (error) {
    // an allocation that fails outside the script's own code (e.g. the result's text)
    const message = error instanceof Error ? error.message : String(error);
    if (/memory/i.test(message)) return failure(job.name, null, { timeoutMs, memoryMb }, took());
    throw error;
  } finally {
    runtime.dispose();
  }
}

function failure(
  name: string,
  error: { name?: string; message?: string } | null,
  limits: { timeoutMs: number; memoryMb: number },
  durationMs: number,
): ScriptOutcome {
  const message = error?.message ?? '';
  // QuickJS throws null when it cannot even allocate the error of an allocation that failed
  if (error === null || message === 'out of memory' || message === 'string too long') {
    return {
      status: 'stopped',
      reason: 'memory',
      message: `script "${name}" was stopped: it ran out of its memory limit of ${limits.memoryMb} MB`,
      logs: [],
      durationMs,
    };
  }
  if (message === 'interrupted') {
    return {
      status: 'stopped',
      reason: 'timeout',
      message: `script "${name}" was stopped: it ran past its time limit of ${limits.timeoutMs} ms (a loop without end?)`,
      logs: [],
      durationMs,
    };
  }
  if (message === 'stack overflow') {
    return {
      status: 'stopped',
      reason: 'stack',
      message: `script "${name}" was stopped: it overflowed its stack (a recursion without end?)`,
      logs: [],
      durationMs,
    };
  }
  // a syntax error (the source does not compile)
  return {
    status: 'rejected',
    message: `${error?.name ?? 'Error'}: ${message}`,
    logs: [],
    durationMs,
  };
}
