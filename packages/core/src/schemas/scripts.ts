import { z } from 'zod';
import { DateTime, ResourceName, TypeName } from './common';

/**
 * Scripts (`/api/scripts`) are server-side hooks written in JavaScript. A script is a module
 * body that receives `{item, site, event}` and returns the (possibly changed) item, or
 * nothing to leave it alone. It runs sandboxed (no network, no file system) within
 * `timeoutMs`. It runs at its `event` for items of `type` (every type when null), when run by
 * a `script` transform, or on demand (`manual`).
 */
export const ScriptEvent = z
  .enum(['manual', 'beforeSave', 'afterSave', 'beforePublish', 'afterPublish', 'beforeRender', 'afterBuild'])
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
      'A server-side hook in JavaScript: receives {item, site, event} and returns the changed item (or nothing). Runs sandboxed within timeoutMs at its event, for items of type (every type when null), from a script transform, or on demand (manual).',
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
  })
  .meta({ id: 'UpdateScriptBody' });
export type UpdateScriptBody = z.infer<typeof UpdateScriptBody>;

/** Path parameters of /api/scripts/{name}. */
export const ScriptParams = z.object({ name: ResourceName });
export type ScriptParams = z.infer<typeof ScriptParams>;
