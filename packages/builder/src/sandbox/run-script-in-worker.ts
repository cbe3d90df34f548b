import { LiquidSandbox, SandboxStoppedError } from './liquid-sandbox';
import { DEFAULT_SCRIPT_TIMEOUT_MS, type ScriptJobInput, type ScriptOutcome } from './script-runner';

/**
 * Time the worker is given beyond a script's own time limit before it is terminated: QuickJS's
 * interrupt handler stops the script at its limit; this bound holds if even that fails.
 */
const GRACE_MS = 5_000;

/**
 * Runs a script in QuickJS in a sandbox worker thread: the calling thread (a server's request
 * thread) stays free however the script behaves. The script is stopped at its time limit by
 * QuickJS's interrupt handler and at its memory limit by the runtime's; should the worker
 * itself not answer within the limit plus a grace, it is terminated and the outcome says the
 * script was stopped. `sandbox` is a kept sandbox (its worker stays warm); without one, a
 * sandbox is started and ended for the call.
 */
export async function runScriptInWorker(
  job: ScriptJobInput,
  sandbox?: LiquidSandbox,
): Promise<ScriptOutcome> {
  const own = sandbox ?? new LiquidSandbox({ memoryMb: 256 });
  const started = performance.now();
  try {
    return await own.run(
      { type: 'script', ...job },
      { timeoutMs: (job.timeoutMs ?? DEFAULT_SCRIPT_TIMEOUT_MS) + GRACE_MS },
    );
  } catch (error) {
    if (!(error instanceof SandboxStoppedError)) throw error;
    return {
      status: 'stopped',
      reason: /memory/.test(error.message) ? 'memory' : 'timeout',
      message: `script "${job.name}" was stopped: ${error.message}`,
      logs: [],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    if (!sandbox) await own.close();
  }
}
