import { createLiquid } from './create-liquid';

/** Where a template failed to parse. */
export interface TemplateProblem {
  message: string;
  line: number | null;
  column: number | null;
}

/**
 * Parses Liquid source with the site's environment (custom tags and filters known, unknown
 * filters rejected) and reports the first problem with its line and column, or null. In the
 * calling thread: liquidjs's parser takes time quadratic in the number of tags (a 1 MB
 * template of 45,000 tags took 19 s), so a server checks in a worker
 * ({@link assertTemplateParsesInWorker} in assert-template.ts).
 */
export function checkTemplate(content: string): TemplateProblem | null {
  const { liquid } = createLiquid({ templates: new Map(), urls: { publicUrl: null } });
  try {
    liquid.parse(content);
    return null;
  } catch (error) {
    const token = (error as { token?: { getPosition?: () => [number, number] } }).token;
    const position = token?.getPosition?.();
    const message = String((error as Error).message ?? error).replace(/, line:\d+, col:\d+$/, '');
    return { message, line: position?.[0] ?? null, column: position?.[1] ?? null };
  }
}
