import type { ContentType, FieldDefinition, RelationshipDefinition } from '../schemas/content-type';
import { isSingleTarget } from './definitions';

/** What the generated files say they were made from. */
export interface SiteTypescriptSource {
  /** `site:<slug>` */
  siteId: string;
  siteName: string;
  types: readonly Pick<ContentType, 'name' | 'label' | 'fields' | 'relationships' | 'description'>[];
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A property key: bare when it is an identifier, else quoted. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** `release-note` → `ReleaseNote`; a name starting with a digit gets a leading `T`. */
export function typeIdentifier(name: string): string {
  const pascal = name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return /^[A-Za-z]/.test(pascal) ? pascal : `T${pascal}`;
}

/** A `/** … *\/` line, safe whatever the text holds. */
function doc(text: string, indent = ''): string {
  return `${indent}/** ${text.replaceAll('*/', '*\\/').replace(/\s+/g, ' ').trim()} */\n`;
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript template literal type
const idOf = (type: string | undefined) => (type ? `\`${type}:\${string}\`` : '`${string}:${string}`');

/** The TypeScript type of a field's value (docs/content-types.md, "Field types"). */
export function fieldTsType(field: Pick<FieldDefinition, 'type' | 'values' | 'target'>): string {
  switch (field.type) {
    case 'string':
    case 'text':
    case 'markdown':
      return 'string';
    case 'richtext':
      return 'string | RichTextDocument';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'IsoDate';
    case 'datetime':
      return 'IsoDateTime';
    case 'enum':
      return (field.values ?? []).map((value) => JSON.stringify(value)).join(' | ') || 'never';
    case 'stringlist':
      return 'string[]';
    case 'image':
      return 'ImageRef';
    case 'reference':
      return idOf(field.target);
  }
}

function fieldNote(field: FieldDefinition): string {
  const parts = [field.label ?? field.name, `(${field.type}${field.required ? ', required' : ''}`];
  if (field.type === 'reference' && field.target) parts[1] += ` → ${field.target}`;
  if (field.default !== undefined) parts[1] += `, default ${JSON.stringify(field.default)}`;
  return `${parts.join(' ')})`;
}

function relationshipTsType(relationship: RelationshipDefinition): string {
  const id = idOf(relationship.target);
  return isSingleTarget(relationship.kind) ? id : `Array<${id}>`;
}

function typeBlock(type: SiteTypescriptSource['types'][number], name: string): string {
  const fields = type.fields ?? [];
  const relationships = type.relationships ?? [];
  let out = doc(
    `${type.label} (\`${type.name}\`)${type.description ? `: ${type.description}` : ''}: an item's fields as read.`,
  );
  out += `export interface ${name}Fields {\n`;
  for (const field of fields) {
    out += doc(fieldNote(field), '  ');
    out += field.required
      ? `  ${key(field.name)}: ${fieldTsType(field)};\n`
      : `  ${key(field.name)}?: ${fieldTsType(field)} | null;\n`;
  }
  out += '}\n\n';
  out += doc(`The fields of a new \`${type.name}\` item: required ones without a default must be given.`);
  out += `export interface ${name}Input {\n`;
  for (const field of fields) {
    const isNeeded = field.required === true && field.default === undefined;
    out += isNeeded
      ? `  ${key(field.name)}: ${fieldTsType(field)};\n`
      : `  ${key(field.name)}?: ${fieldTsType(field)}${field.required ? '' : ' | null'};\n`;
  }
  out += '}\n\n';
  out += doc(`The relationships of a \`${type.name}\` item: target item ids.`);
  // `{}` would take any object; a type without relationships takes none.
  if (relationships.length === 0) out += `export type ${name}Relationships = Record<string, never>;\n\n`;
  else out += `export interface ${name}Relationships {\n`;
  for (const relationship of relationships) {
    out += doc(
      `${relationship.edgeLabel} → ${relationship.target} (${relationship.kind ?? 'many-to-many'}${relationship.required ? ', required' : ''})`,
      '  ',
    );
    out += `  ${key(relationship.name)}${relationship.required ? '' : '?'}: ${relationshipTsType(relationship)};\n`;
  }
  if (relationships.length > 0) out += '}\n\n';
  out += doc(`The id of a \`${type.name}\` item.`);
  out += `export type ${name}Id = ${idOf(type.name)};\n`;
  return out;
}

/**
 * The `.d.ts` of a site's content types: per type `<Name>Fields` (as read), `<Name>Input` (for
 * a create), `<Name>Relationships` and `<Name>Id`, and the map `ContentTypes` that
 * `@trelliscms/sdk`'s `withContentTypes` takes. Types are sorted by name, so the file only
 * changes when the schema does.
 */
export function siteTypesDeclaration(source: SiteTypescriptSource): string {
  const types = [...source.types].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // `release-note` and `release_note` would both be `ReleaseNote`: the second gets a number.
  const names = new Map<string, string>();
  const used = new Set<string>();
  for (const type of types) {
    const base = typeIdentifier(type.name);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}${n}`;
    used.add(name);
    names.set(type.name, name);
  }
  let out = `// The content types of ${source.siteName} (${source.siteId}), generated by Trellis
// (GET /api/sdk/types.d.ts, \`cms sdk generate\`). Do not edit: regenerate after changing a type.

/** A calendar date, \`YYYY-MM-DD\`. */
export type IsoDate = string;
/** An ISO 8601 date-time with a time zone (\`2026-01-31T09:30:00Z\`). */
export type IsoDateTime = string;
/** A media asset id (\`asset:<id>\`) or an image URL (\`https://…\` or a site path \`/…\`). */
export type ImageRef = \`asset:\${string}\` | \`http://\${string}\` | \`https://\${string}\` | \`/\${string}\`;
/** A rich-text document (an editor's JSON). */
export type RichTextDocument = { readonly [key: string]: unknown };

`;
  for (const type of types) out += `${typeBlock(type, names.get(type.name)!)}\n`;
  out += doc(
    'Every content type of the site: its fields as read, as given to a create, and its relationships.',
  );
  out += 'export type ContentTypes = {\n';
  for (const type of types) {
    const name = names.get(type.name)!;
    out += `  ${key(type.name)}: { fields: ${name}Fields; input: ${name}Input; relationships: ${name}Relationships };\n`;
  }
  out += '};\n\n';
  out += doc('The name of a content type of the site.');
  out += 'export type ContentTypeName = keyof ContentTypes;\n';
  return out;
}

/**
 * The typed client of a site: `createSiteClient(options)` is `createClient(options).site(id)`
 * whose `content` namespace is typed by {@link siteTypesDeclaration}'s `ContentTypes` (imported
 * from `./types.js`, the `.d.ts` beside it).
 */
export function siteClientSource(source: Pick<SiteTypescriptSource, 'siteId' | 'siteName'>): string {
  return `// The typed client of ${source.siteName} (${source.siteId}), generated by Trellis
// (GET /api/sdk/client.ts, \`cms sdk generate\`). Do not edit: regenerate after changing a type.
import { type ClientOptions, createClient, type TypedSiteClient, withContentTypes } from '@trelliscms/sdk';
import type { ContentTypes } from './types.js';

export type * from './types.js';

/** The site these types were generated from. */
export const SITE_ID = ${JSON.stringify(source.siteId)};

/**
 * A client of the site whose \`content\` namespace is typed by the site's content types:
 * \`(await site.content.list('post'))[0].fields.title\` is a \`string\`.
 */
export function createSiteClient(options: ClientOptions, siteId: string = SITE_ID): TypedSiteClient<ContentTypes> {
  return withContentTypes<ContentTypes>(createClient(options).site(siteId));
}
`;
}
