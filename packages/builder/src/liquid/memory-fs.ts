import type { FS } from 'liquidjs';
import { pageKitTemplateName } from './site-fragments';

/**
 * An in-memory liquidjs file system over the site's templates, by name: `{% include 'header' %}`,
 * `{% render 'card' %}` and `{% layout 'base' %}` read the template of that name. Nothing
 * reaches the real file system.
 */
export function createMemoryFs(templates: ReadonlyMap<string, string>): FS {
  const read = (file: string): string => {
    const content = templates.get(file);
    if (content === undefined) throw new Error(`template "${file}" not found`);
    return content;
  };
  return {
    exists: async (file) => templates.has(file),
    existsSync: (file) => templates.has(file),
    readFile: async (file) => read(file),
    readFileSync: read,
    resolve: (_dir, file) => file,
    contains: async () => true,
    containsSync: () => true,
    sep: '/',
    dirname: () => '',
  };
}

const reference = /\{%-?\s*(include|render|layout|pagekit)\s+(['"])([^'"]+)\2/g;

/**
 * Names of the templates a Liquid source includes, renders or extends by a quoted name, each
 * once; a page kit used by a quoted id counts as its fragment's template (`pagekit:<id>`).
 */
export function templateReferences(content: string): string[] {
  return [
    ...new Set(
      Array.from(content.matchAll(reference), (match) =>
        match[1] === 'pagekit' ? pageKitTemplateName(match[3]!) : match[3]!,
      ),
    ),
  ];
}

/** Names of templates a template includes, renders or extends, directly or through others (itself included). */
export function templateClosure(name: string, templates: ReadonlyMap<string, string>): string[] {
  const seen = new Set<string>();
  const stack = [name];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    const content = templates.get(current);
    if (content === undefined) continue;
    stack.push(...templateReferences(content));
  }
  return [...seen].sort();
}
