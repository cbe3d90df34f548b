import { z } from 'zod';
import { DateTime, ResourceName, TypeName } from './common';

/**
 * Scripts (`/api/scripts`) are server-side hooks written in JavaScript (docs/scripts.md). A
 * script is a function body that receives `input` (also as `item`, `site`, `event`) and returns
 * the (possibly changed) item, or nothing to leave it alone; it refuses with `throw new
 * Error(message)` or `return {error: message}`. It runs in QuickJS compiled to WebAssembly (no
 * network, no file system, no host objects: only the JSON it is given) within `timeoutMs` and
 * `memoryMb`. It runs at its `event` for items of `type` (every type when null), when run by a
 * `script` transform, or on demand (`manual`, and `POST /api/scripts/{name}/test`).
 */
export const ScriptEvent = z
  .enum([
    'manual',
    'beforeSave',
    'afterSave',
    'beforePublish',
    'afterPublish',
    'beforeBuild',
    'beforeRender',
    'afterRender',
    'afterBuild',
  ])
  .meta({ id: 'ScriptEvent' });
export type ScriptEvent = z.infer<typeof ScriptEvent>;

const scriptShape = {
  name: ResourceName,
  description: z.string().max(2000).optional(),
  language: z.literal('javascript').default('javascript'),
  /** The JavaScript source. */
  source: z.string().min(1).max(200_000),
  event: ScriptEvent.default('manual'),
  type: TypeName.nullable().optional(),
  enabled: z.boolean().default(true),
  timeoutMs: z.number().int().min(1).max(30_000).default(1000),
  /** MB the script's QuickJS runtime may allocate. */
  memoryMb: z.number().int().min(1).max(256).default(16),
};

/** A script (GET /api/scripts/{name}); `version` counts its writes. */
export const Script = z
  .object({
    ...scriptShape,
    version: z.number().int().min(1).optional(),
    createdAt: DateTime.optional(),
    updatedAt: DateTime.optional(),
  })
  .meta({
    id: 'Script',
    description:
      'A server-side hook in JavaScript (a function body): receives input (also as item, site, event) and returns the changed item or {fields} (or nothing); refuses with throw new Error(message) or return {error}. Runs in QuickJS (WebAssembly) within timeoutMs and memoryMb at its event, for items of type (every type when null), from a script transform, or on demand (manual, POST /api/scripts/{name}/test).',
  });
export type Script = z.infer<typeof Script>;

/** GET /api/scripts */
export const ScriptList = z.array(Script).meta({ id: 'ScriptList' });
export type ScriptList = z.infer<typeof ScriptList>;

/** POST /api/scripts */
export const CreateScriptBody = z.object(scriptShape).meta({ id: 'CreateScriptBody' });
export type CreateScriptBody = z.infer<typeof CreateScriptBody>;

/** PUT or PATCH /api/scripts/{name}: the given keys replace the stored ones. */
export const UpdateScriptBody = z
  .object({
    description: scriptShape.description,
    source: scriptShape.source.optional(),
    event: ScriptEvent.optional(),
    type: scriptShape.type,
    enabled: z.boolean().optional(),
    timeoutMs: z.number().int().min(1).max(30_000).optional(),
    memoryMb: z.number().int().min(1).max(256).optional(),
  })
  .meta({ id: 'UpdateScriptBody' });
export type UpdateScriptBody = z.infer<typeof UpdateScriptBody>;

/** Path parameters of /api/scripts/{name}. */
export const ScriptParams = z.object({ name: ResourceName });
export type ScriptParams = z.infer<typeof ScriptParams>;

/** POST /api/scripts/{name}/test: the input of a dry run (default `{event: "manual", item: null}`). */
export const TestScriptBody = z
  .object({
    /** the JSON the script receives as `input` (its keys `item`, `site`, `event`... as names too) */
    input: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'TestScriptBody' });
export type TestScriptBody = z.infer<typeof TestScriptBody>;

/**
 * What a script run gave: `ok` with the returned `value`; `rejected` (it threw or returned
 * `{error}`) with its `message`; `stopped` (past its time or memory limit, or its stack) with
 * `reason` and `message`. `logs` are its `console.log` lines.
 */
export const ScriptRunResult = z
  .object({
    script: ResourceName,
    status: z.enum(['ok', 'rejected', 'stopped']),
    value: z.unknown().optional(),
    message: z.string().optional(),
    reason: z.enum(['timeout', 'memory', 'stack']).optional(),
    logs: z.array(z.string()),
    durationMs: z.number().int().min(0),
  })
  .meta({ id: 'ScriptRunResult' });
export type ScriptRunResult = z.infer<typeof ScriptRunResult>;
