import { emitsPages, pageTemplateFor, templateReferences } from '@trelliscms/builder';
import type { Holder } from '@trelliscms/core';
import { listTypes } from '../content/type-repository';
import type { GraphReader } from '../engines/port';
import { OTHER_RESOURCES, ROUTES, TRANSFORMS, VIEWS } from './resource-specs';
import { listSiteResources, type SiteResourceSpec } from './site-resources';
import { listTemplates } from './template-repository';

const spec = (base: string): SiteResourceSpec =>
  OTHER_RESOURCES.find((candidate) => candidate.base === base)!;

/**
 * What holds template `name` (none of it cascades): routes, views and block types that render
 * with it, `template` transforms that run it, other templates, widgets and page kits whose
 * Liquid includes, renders or extends it by name, and the content types whose pages it
 * renders (it is their page template: the enabled one bound to the type, or the wildcard one).
 * A disabled template renders no type's pages.
 */
export async function findTemplateHolders(reader: GraphReader, name: string): Promise<Holder[]> {
  const holders: Holder[] = [];
  const add = (kind: string, id: unknown, detail: string) =>
    holders.push({ kind, id: String(id), detail, cascades: false });
  for (const [resources, kind] of [
    [ROUTES, 'route'],
    [VIEWS, 'view'],
    [spec('block-types'), 'block-type'],
  ] as const) {
    for (const resource of await listSiteResources(reader, resources)) {
      if (resource.template === name) add(kind, resource[resources.key], `renders with ${name}`);
    }
  }
  for (const transform of await listSiteResources(reader, TRANSFORMS)) {
    if (transform.kind === 'template' && transform.template === name)
      add('transform', transform.id, `runs ${name}`);
  }
  const templates = await listTemplates(reader);
  for (const template of templates) {
    if (template.name !== name && templateReferences(template.content).includes(name)) {
      add('template', template.name, `includes, renders or extends ${name}`);
    }
  }
  for (const [resources, kind] of [
    [spec('widgets'), 'widget'],
    [spec('page-kits'), 'page-kit'],
  ] as const) {
    for (const resource of await listSiteResources(reader, resources)) {
      const source = typeof resource.template === 'string' ? resource.template : '';
      if (templateReferences(source).includes(name)) {
        add(kind, resource[resources.key], `includes, renders or extends ${name}`);
      }
    }
  }
  for (const type of await listTypes(reader)) {
    if (emitsPages(type) && pageTemplateFor(type.name, templates) === name) {
      add(
        'type',
        type.name,
        `renders its pages (disable ${name}, or bind another template to ${type.name}, first)`,
      );
    }
  }
  return holders;
}
