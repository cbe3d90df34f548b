import { z } from 'zod';
import { DateTime, FieldName, Slug, TypeName } from './common';
import { TemplateName } from './template';

/**
 * Transforms are lifecycle hooks (`/api/transforms`): at an `event` of an item's life they
 * change the item, for items of one content type (`type`) or of every type (`type` null).
 * Enabled transforms of an event run in ascending `order`. Kinds:
 * - `set-field`: sets `field` to `value`; a string value is Liquid rendered with `item` in
 *   scope (`{{ item.fields.title | upcase }}`; text without tags renders as itself), any
 *   other JSON value is set as it is;
 * - `template`: sets `field` to the output of the site template named `template`, rendered
 *   with `item` in scope;
 * - `script`: runs the saved script named `script` (see /api/scripts) on the item.
 * A failing transform does not stop a build: it is reported in `transformErrors`.
 */
export const TransformEvent = z
  .enum([
    'beforeSave',
    'afterSave',
    'beforePublish',
    'afterPublish',
    'beforeRender',
    'afterRender',
    'beforeBuild',
    'afterBuild',
  ])
  .meta({ id: 'TransformEvent' });
export type TransformEvent = z.infer<typeof TransformEvent>;

/** What a transform does. */
export const TransformKind = z.enum(['set-field', 'template', 'script']).meta({ id: 'TransformKind' });
export type TransformKind = z.infer<typeof TransformKind>;

/** A transform id: a slug such as `uppercase-titles`. */
export const TransformId = Slug;

const transformShape = {
  id: TransformId,
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  event: TransformEvent,
  /** The content type it applies to; null or absent: every type. */
  type: TypeName.nullable().optional(),
  kind: TransformKind,
  /** The field written (`set-field`, `template`). */
  field: FieldName.optional(),
  /** The value written (`set-field`). */
  value: z.unknown().optional(),
  /** The name of a site template (`template`). */
  template: TemplateName.optional(),
  /** The name of a saved script (`script`). */
  script: z.string().min(1).max(120).optional(),
  enabled: z.boolean().default(true),
  order: z.number().int().min(-10_000).max(10_000).default(0),
};

type TransformLike = {
  kind?: TransformKind;
  field?: string;
  value?: unknown;
  template?: string;
  script?: string;
};

function checkKind(transform: TransformLike, ctx: z.RefinementCtx): void {
  const need = (key: 'field' | 'template' | 'script') => {
    if (transform[key] === undefined) {
      ctx.addIssue({ code: 'custom', path: [key], message: `a ${transform.kind} transform needs ${key}` });
    }
  };
  if (transform.kind === 'set-field') {
    need('field');
    if (!('value' in transform)) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'a set-field transform needs value' });
    }
  } else if (transform.kind === 'template') {
    need('field');
    need('template');
  } else if (transform.kind === 'script') {
    need('script');
  }
}

/** A lifecycle hook (GET /api/transforms/{id}). */
export const Transform = z
  .object({ ...transformShape, createdAt: DateTime.optional(), updatedAt: DateTime.optional() })
  .meta({
    id: 'Transform',
    description:
      'A lifecycle hook: at event, for items of type (every type when null), enabled transforms run in ascending order. set-field sets field to value (a string value is Liquid with item in scope), template sets field to the output of the named site template, script runs the named script. Failures are reported in the transformErrors of a build.',
  });
export type Transform = z.infer<typeof Transform>;

/** GET /api/transforms: ordered by event, then `order`. */
export const TransformList = z.array(Transform).meta({ id: 'TransformList' });
export type TransformList = z.infer<typeof TransformList>;

/** POST /api/transforms. `id` defaults to a slug of the name. */
export const CreateTransformBody = z
  .object({ ...transformShape, id: TransformId.optional() })
  .superRefine(checkKind)
  .meta({ id: 'CreateTransformBody' });
export type CreateTransformBody = z.infer<typeof CreateTransformBody>;

/**
 * PUT or PATCH /api/transforms/{id}: the given keys replace the stored ones (the route checks
 * the merged transform against its kind's needs).
 */
export const UpdateTransformBody = z
  .object({
    name: transformShape.name.optional(),
    description: transformShape.description,
    event: TransformEvent.optional(),
    type: transformShape.type,
    kind: TransformKind.optional(),
    field: transformShape.field,
    value: transformShape.value,
    template: transformShape.template,
    script: transformShape.script,
    enabled: z.boolean().optional(),
    order: z.number().int().min(-10_000).max(10_000).optional(),
  })
  .meta({ id: 'UpdateTransformBody' });
export type UpdateTransformBody = z.infer<typeof UpdateTransformBody>;

/** Checks a whole transform (e.g. after merging an update) against the needs of its kind. */
export const TransformRules = z.object(transformShape).superRefine(checkKind);

/** Path parameters of /api/transforms/{id}. */
export const TransformParams = z.object({ id: TransformId });
export type TransformParams = z.infer<typeof TransformParams>;
