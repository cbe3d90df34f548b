import { z } from 'zod';
import { DateTime, ResourceName, TypeName } from './common';
import { FieldDefinition } from './content-type';
import { TemplateName } from './template';

/**
 * Block types (`/api/block-types`) define the blocks an item body is built from (a hero, a
 * quote, a gallery...): the `fields` of a block's data (same field definitions as content
 * types), the template that renders one block, and the content types whose bodies may use it
 * (`allowedIn`; every type when absent). POST /content/{type}/{id}/blocks checks a block's
 * `fields` against its type.
 */
const blockTypeShape = {
  name: ResourceName,
  label: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  icon: z.string().max(100).nullable().optional(),
  fields: z.array(FieldDefinition).max(100),
  /** The site template that renders one block (with `block` in scope). */
  template: TemplateName.optional(),
  allowedIn: z.array(TypeName).max(100).optional(),
};

/** A block type (GET /api/block-types/{name}). */
export const BlockType = z
  .object({ ...blockTypeShape, createdAt: DateTime.optional(), updatedAt: DateTime.optional() })
  .meta({
    id: 'BlockType',
    description:
      'A kind of block an item body is built from: the fields of its data (same field definitions as content types), the template rendering one block, and the content types whose bodies may use it.',
  });
export type BlockType = z.infer<typeof BlockType>;

/** GET /api/block-types */
export const BlockTypeList = z.array(BlockType).meta({ id: 'BlockTypeList' });
export type BlockTypeList = z.infer<typeof BlockTypeList>;

/** POST /api/block-types */
export const CreateBlockTypeBody = z.object(blockTypeShape).meta({ id: 'CreateBlockTypeBody' });
export type CreateBlockTypeBody = z.infer<typeof CreateBlockTypeBody>;

/** PUT or PATCH /api/block-types/{name}: the given keys replace the stored ones. */
export const UpdateBlockTypeBody = z
  .object(blockTypeShape)
  .omit({ name: true })
  .partial()
  .meta({ id: 'UpdateBlockTypeBody' });
export type UpdateBlockTypeBody = z.infer<typeof UpdateBlockTypeBody>;

/** Path parameters of /api/block-types/{name}. */
export const BlockTypeParams = z.object({ name: ResourceName });
export type BlockTypeParams = z.infer<typeof BlockTypeParams>;
