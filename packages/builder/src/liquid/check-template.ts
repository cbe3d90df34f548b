import { TrellisError } from '@trelliscms/core';
import { createLiquid } from './create-liquid';

/** Where a template failed to parse. */
export interface TemplateProblem {
  message: string;
  line: number | null;
  column: number | null;
}

/**
 * Parses Liquid source with the site's environment (custom tags and filters known, unknown
 * filters rejected) and reports the first problem with its line and column, or null.
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

/** Throws `invalid_template` (400) naming line and column when the source does not parse. */
export function assertTemplateParses(content: string): void {
  const problem = checkTemplate(content);
  if (problem) {
    const where = problem.line === null ? '' : ` (line ${problem.line}, column ${problem.column})`;
    throw TrellisError.of(
      'invalid_template',
      { detail: `${problem.message}${where}` },
      { extra: { line: problem.line, column: problem.column } },
    );
  }
}
