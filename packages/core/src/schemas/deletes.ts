import { z } from 'zod';
import { ErrorSchema, QueryFlag } from './common';

/**
 * Deletes with integrity (docs/api-spec.md §4, §7): a delete answers 204 with no body, or 409
 * `in_use` naming what still uses the resource, unless the caller asks to cascade where the
 * resource documents what a cascade does.
 */

/** Query of a DELETE that can cascade: `?cascade=1` also removes (or clears) what holds the resource. */
export const DeleteQuery = z.object({ cascade: QueryFlag.optional() });
export type DeleteQuery = z.infer<typeof DeleteQuery>;

/**
 * One thing that holds a resource a delete was asked for: its kind (`item`, `type`,
 * `template`, `route`, `view`, `transform`, `script`, `block-type`, `page-kit`, `widget`,
 * `release`, `deployment`), its id or name, what it does with the resource (`detail`), and
 * whether `?cascade=1` would take care of it (`cascades`).
 */
export const Holder = z
  .object({
    kind: z.string(),
    id: z.string(),
    detail: z.string().optional(),
    cascades: z.boolean(),
  })
  .meta({ id: 'Holder' });
export type Holder = z.infer<typeof Holder>;

/** The body of a 409 `in_use`: the holders (at most 100 listed) and how many there are in all. */
export const InUseErrorBody = ErrorSchema.extend({
  code: z.literal('in_use'),
  holders: z.array(Holder),
  holderCount: z.number().int().min(1),
}).meta({ id: 'InUseError' });
export type InUseErrorBody = z.infer<typeof InUseErrorBody>;
