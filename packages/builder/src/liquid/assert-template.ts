import { TrellisError } from '@trelliscms/core/build';
import { checkTemplateInWorker } from '../sandbox/check-template-in-worker';
import { checkTemplate, type TemplateProblem } from './check-template';

function invalidTemplate(problem: TemplateProblem): TrellisError {
  const where = problem.line === null ? '' : ` (line ${problem.line}, column ${problem.column})`;
  return TrellisError.of(
    'invalid_template',
    { detail: `${problem.message}${where}` },
    { extra: { line: problem.line, column: problem.column } },
  );
}

/** Throws `invalid_template` (400) naming line and column when the source does not parse. */
export function assertTemplateParses(content: string): void {
  const problem = checkTemplate(content);
  if (problem) throw invalidTemplate(problem);
}

/**
 * {@link assertTemplateParses} with the parse in a worker thread ({@link checkTemplateInWorker}):
 * what a server calls, so a template that takes long to parse never holds its request thread.
 * A parse past `timeoutMs` (default 2 s) is `invalid_template` too.
 */
export async function assertTemplateParsesInWorker(
  content: string,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const problem = await checkTemplateInWorker(content, options);
  if (problem) throw invalidTemplate(problem);
}
