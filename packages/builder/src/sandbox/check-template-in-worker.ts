import type { TemplateProblem } from '../liquid/check-template';
import { LiquidSandbox, SandboxStoppedError } from './liquid-sandbox';

/** How long a template may take to parse in the worker, unless given. */
export const DEFAULT_CHECK_TIMEOUT_MS = 2000;

/** The sandbox template checks share (its worker is kept between checks, idle without holding the process). */
let shared: LiquidSandbox | null = null;

/**
 * `checkTemplate` in a worker thread: the calling thread (a server's request thread) stays
 * free while liquidjs parses, which takes time quadratic in the number of tags. A template
 * that takes longer than `timeoutMs` to parse (or more than 256 MB) is a problem of its own:
 * its worker is terminated and the answer says so.
 */
export async function checkTemplateInWorker(
  content: string,
  { timeoutMs = DEFAULT_CHECK_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<TemplateProblem | null> {
  shared ??= new LiquidSandbox({ memoryMb: 256 });
  try {
    return await shared.run({ type: 'check', content }, { timeoutMs });
  } catch (error) {
    if (!(error instanceof SandboxStoppedError)) throw error;
    return {
      message: `the template could not be checked: ${error.message} (split a very large template into partials)`,
      line: null,
      column: null,
    };
  }
}
