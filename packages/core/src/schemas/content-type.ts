import { z } from 'zod';
import { EdgeLabel, FieldName, NodeLabel, TypeName } from './common';

/** The 12 field types of docs/api-spec.md §2. */
export const FieldType = z
  .enum([
    'string',
    'text',
    'markdown',
    'richtext',
    'number',
    'boolean',
    'date',
    'datetime',
    'enum',
    'stringlist',
    'image',
    'reference',
  ])
  .meta({ id: 'FieldType' });
export type FieldType = z.infer<typeof FieldType>;

/** The field types whose values are strings, so `minLength`, `maxLength` and `regex` apply. */
export const STRING_FIELD_TYPES: readonly FieldType[] = ['string', 'text', 'markdown', 'richtext'];

const fieldDefinitionShape = {
  name: FieldName,
  type: FieldType,
  /** A human label for forms; defaults to the name. */
  label: z.string().max(200).optional(),
  required: z.boolean().optional(),
  /** No two items of the type may hold the same value. */
  unique: z.boolean().optional(),
  /** The value used when an item leaves the field out. */
  default: z.unknown().optional(),
  /** The allowed values of an `enum` field (required, non-empty, for `enum`). */
  values: z.array(z.string().min(1).max(200)).max(500).optional(),
  minLength: z.number().int().min(0).optional(),
  maxLength: z.number().int().min(0).optional(),
  /** A regular expression (JavaScript syntax, no flags) a string value must match. */
  regex: z.string().min(1).max(500).optional(),
  /** For `reference` fields: the name of the content type referred to. */
  target: TypeName.optional(),
  /**
   * The field has one value per locale (`PUT /api/locales/{code}/translations`); the item's own
   * value is the default locale's. A locale without a value falls back along its chain.
   */
  translatable: z.boolean().optional(),
};

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/**
 * A field definition. Rules: an `enum` field needs a non-empty `values` list (and its
 * `default`, if any, must be one of them); `minLength` may not exceed `maxLength`; `regex`
 * must compile.
 */
export const FieldDefinition = z
  .object(fieldDefinitionShape)
  .superRefine((field, ctx) => {
    if (field.type === 'enum') {
      if (!field.values || field.values.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['values'],
          message: 'an enum field needs a non-empty values list',
        });
      } else if (field.default !== undefined && !field.values.includes(field.default as string)) {
        ctx.addIssue({ code: 'custom', path: ['default'], message: 'the default must be one of values' });
      }
      if (field.values && new Set(field.values).size !== field.values.length) {
        ctx.addIssue({ code: 'custom', path: ['values'], message: 'values must be distinct' });
      }
    }
    if (field.minLength !== undefined && field.maxLength !== undefined && field.minLength > field.maxLength) {
      ctx.addIssue({ code: 'custom', path: ['minLength'], message: 'minLength must not exceed maxLength' });
    }
    if (field.regex !== undefined && !compiles(field.regex)) {
      ctx.addIssue({ code: 'custom', path: ['regex'], message: 'regex is not a valid regular expression' });
    }
  })
  .meta({ id: 'FieldDefinition' });
export type FieldDefinition = z.infer<typeof FieldDefinition>;

/** How many items each side of a relationship may have. */
export const RelationshipKind = z
  .enum(['one-to-one', 'one-to-many', 'many-to-one', 'many-to-many'])
  .meta({ id: 'RelationshipKind' });
export type RelationshipKind = z.infer<typeof RelationshipKind>;

/** A relationship definition: items of this type point at items of `target` with `edgeLabel` edges. */
export const RelationshipDefinition = z
  .object({
    name: FieldName,
    /** The graph edge label: an uppercase identifier such as `ACTED_IN`. */
    edgeLabel: EdgeLabel,
    /** The name of the target content type. */
    target: TypeName,
    kind: RelationshipKind.optional(),
    required: z.boolean().optional(),
  })
  .meta({ id: 'RelationshipDefinition' });
export type RelationshipDefinition = z.infer<typeof RelationshipDefinition>;

const placeholder = /^\{(?:parent\.)?[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * A route pattern for item pages: starts with `/`; literals and the placeholders `{slug}`,
 * `{<fieldName>}`, `{parent.slug}`, `{parent.<fieldName>}`. Example: `/films/{year}/{slug}/`.
 */
export const RoutePattern = z
  .string()
  .min(1)
  .max(500)
  .refine((pattern) => pattern.startsWith('/'), 'must start with /')
  .refine((pattern) => {
    const withoutPlaceholders = pattern.replace(/\{[^{}]*\}/g, (token) =>
      placeholder.test(token) ? '' : '{',
    );
    return !/[{}\s?#]/.test(withoutPlaceholders);
  }, 'placeholders are {slug}, {<fieldName>}, {parent.slug} or {parent.<fieldName>}; no spaces, ? or #');

const contentTypeShape = {
  /** Used as a URL path segment and as the `<type>` of item ids. */
  name: TypeName,
  label: z.string().min(1).max(200),
  /** The graph node label of the type's items. */
  nodeLabel: NodeLabel,
  /** The field whose value gives an item's slug (the `<slug>` of `<type>:<slug>`). */
  keyField: FieldName,
  fields: z.array(FieldDefinition).max(200),
  relationships: z.array(RelationshipDefinition).max(100).optional(),
  /** URL pattern for item pages; null means the fallback `/<type>/<slug>/`. */
  routePattern: RoutePattern.nullable().optional(),
  /** Default true; false means the build emits no per-item pages. */
  emitPages: z.boolean().optional(),
  /** Alias of `emitPages: false`; if both are set, `emitPages` wins. */
  listingOnly: z.boolean().optional(),
  /** The content types whose items may be children of this type's items. */
  allowedChildren: z.array(TypeName).max(100).optional(),
  /** An icon name for the admin UI. */
  icon: z.string().max(100).nullable().optional(),
  /** A description for the admin UI. */
  description: z.string().max(2000).optional(),
};

type ContentTypeLike = {
  fields?: { name: string }[];
  relationships?: { name: string }[];
};

function checkNames(type: ContentTypeLike, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  for (const [index, field] of (type.fields ?? []).entries()) {
    if (seen.has(field.name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['fields', index, 'name'],
        message: `duplicate field ${field.name}`,
      });
    }
    seen.add(field.name);
  }
  for (const [index, relationship] of (type.relationships ?? []).entries()) {
    if (seen.has(relationship.name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['relationships', index, 'name'],
        message: `duplicate field or relationship ${relationship.name}`,
      });
    }
    seen.add(relationship.name);
  }
}

/**
 * Spec §2 ContentType (full): the body of POST /api/types and the answer of
 * GET /api/types/{name}. Field and relationship names must be distinct.
 */
export const ContentType = z.object(contentTypeShape).superRefine(checkNames).meta({ id: 'ContentType' });
export type ContentType = z.infer<typeof ContentType>;

/** POST /api/types */
export const CreateContentTypeBody = ContentType;
export type CreateContentTypeBody = ContentType;

/** PATCH /api/types/{name}: a partial ContentType; the given keys replace the stored ones. */
export const UpdateContentTypeBody = z
  .object(contentTypeShape)
  .partial()
  .superRefine(checkNames)
  .meta({ id: 'UpdateContentTypeBody' });
export type UpdateContentTypeBody = z.infer<typeof UpdateContentTypeBody>;

/** Spec §2 ContentTypeSummary: the list shape of GET /api/types. */
export const ContentTypeSummary = z
  .object({
    name: z.string(),
    label: z.string(),
    nodeLabel: z.string(),
    fieldCount: z.number().int().min(0),
    relationshipCount: z.number().int().min(0),
    allowedChildren: z.array(z.string()),
    icon: z.string().nullable().optional(),
    emitPages: z.boolean(),
    routePattern: z.string().nullable(),
    fields: z.array(z.object({ name: z.string(), type: FieldType })),
  })
  .meta({ id: 'ContentTypeSummary' });
export type ContentTypeSummary = z.infer<typeof ContentTypeSummary>;

/** GET /api/types */
export const ContentTypeSummaryList = z.array(ContentTypeSummary).meta({ id: 'ContentTypeSummaryList' });
export type ContentTypeSummaryList = z.infer<typeof ContentTypeSummaryList>;

/** Path parameters of /api/types/{name}. */
export const ContentTypeParams = z.object({ name: TypeName });
export type ContentTypeParams = z.infer<typeof ContentTypeParams>;

/**
 * Whether the build emits per-item pages for a type: `emitPages` wins; otherwise
 * `listingOnly: true` means no; legacy rows without either read as true.
 */
export function effectiveEmitPages(type: {
  emitPages?: boolean | null;
  listingOnly?: boolean | null;
}): boolean {
  if (typeof type.emitPages === 'boolean') return type.emitPages;
  if (type.listingOnly === true) return false;
  return true;
}

/** The list shape of a full type (docs/api-spec.md §2 ContentTypeSummary). */
export function summarizeContentType(type: ContentType): ContentTypeSummary {
  return {
    name: type.name,
    label: type.label,
    nodeLabel: type.nodeLabel,
    fieldCount: type.fields.length,
    relationshipCount: type.relationships?.length ?? 0,
    allowedChildren: type.allowedChildren ?? [],
    ...(type.icon !== undefined ? { icon: type.icon } : {}),
    emitPages: effectiveEmitPages(type),
    routePattern: type.routePattern ?? null,
    fields: type.fields.map((field) => ({ name: field.name, type: field.type })),
  };
}
