import type { Liquid, Template } from 'liquidjs';
import { Context, toValueSync, UndefinedVariableError } from 'liquidjs';

/** A variable a page's template read that had no value. */
export interface UndefinedVariable {
  /** the variable as written, up to the part without a value (`item.subtitle`, `author`) */
  variable: string;
  /** the template it is read in (a partial's name when it is read in one) */
  template: string;
  line: number | null;
}

/** The most variables reported per page. */
const MAX_PER_PAGE = 20;

function flatten(error: unknown): unknown[] {
  const nested = (error as { errors?: unknown[] }).errors;
  return Array.isArray(nested) ? nested.flatMap(flatten) : [error];
}

/**
 * Renders a page's templates once more, strictly, and answers the variables read without a
 * value: `{{ missing }}`, `{{ item.subtitle }}` on an item without one, `{% for x in nothing %}`.
 * Tests of presence are not reported (`{% if x %}`, `{% unless %}`, `{% case %}`, `| default:`
 * first), nor anything else the strict render runs into. The page itself comes from the normal
 * render; this pass writes nothing. liquidjs goes on after each error within a block (its
 * `catchAllErrors`), so every undefined variable of the page's top level is found, and the first
 * of each loop or block.
 */
export function findUndefinedVariables(params: {
  liquid: Liquid;
  templates: Template[];
  scope: Record<string, unknown>;
  template: string;
}): UndefinedVariable[] {
  const { liquid } = params;
  const ctx = new Context(
    params.scope,
    { ...liquid.options, catchAllErrors: true, lenientIf: true },
    { sync: true, strictVariables: true },
  );
  try {
    toValueSync(liquid.renderer.renderTemplates(params.templates, ctx));
    return [];
  } catch (error) {
    const found: UndefinedVariable[] = [];
    const seen = new Set<string>();
    for (const each of flatten(error)) {
      if (!(each instanceof UndefinedVariableError)) continue;
      const variable = /undefined variable: ([^,\s]+)/.exec(each.message)?.[1] ?? each.message;
      const token = (each as { token?: { file?: string; getPosition?: () => number[] } }).token;
      const line = token?.getPosition?.()[0] ?? null;
      const template = token?.file ? token.file.replace(/^\//, '') : params.template;
      const key = `${template}\n${line}\n${variable}`;
      if (seen.has(key)) continue;
      seen.add(key);
      found.push({ variable, template, line });
      if (found.length >= MAX_PER_PAGE) break;
    }
    return found;
  }
}
