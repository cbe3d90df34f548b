import {
  applyTransformsInWorker,
  LiquidSandbox,
  runScriptInWorker,
  type ScriptJobInput,
  type ScriptOutcome,
  type TransformOutcome,
} from '@trelliscms/builder';
import type { Graph } from '../engines/port';

/** Heap of the hooks' worker (QuickJS's own memory, bounded per script by `memoryMb`, is apart). */
const SANDBOX_HEAP_MB = 256;

/** Where a script host reports scripts it stopped or that failed after the fact. */
export interface HookLog {
  warn(data: Record<string, unknown>, message: string): void;
}

/**
 * The server's place to run site scripts and hooks: one sandbox worker thread (kept warm)
 * that runs QuickJS and Liquid away from the request thread, one job at a time, so a script
 * that loops or allocates without end costs its own time limit and never the API's
 * responsiveness. `close()` ends the worker.
 */
export class ScriptHost {
  private readonly sandbox = new LiquidSandbox({ memoryMb: SANDBOX_HEAP_MB });

  constructor(private readonly log: HookLog) {}

  /** Runs one script in the sandbox (see `runScriptInWorker`). */
  run(job: ScriptJobInput): Promise<ScriptOutcome> {
    return runScriptInWorker(job, this.sandbox);
  }

  /** Runs transforms over a (small) snapshot in the sandbox (see `applyTransformsInWorker`). */
  transforms(params: Parameters<typeof applyTransformsInWorker>[0]): Promise<TransformOutcome> {
    return applyTransformsInWorker(params, () => this.sandbox);
  }

  /**
   * Records a hook that was stopped or failed: a warning in the log and an entry `hook.<kind>` in
   * the site's audit chain, naming the hook, the event and what happened.
   */
  async report(params: {
    graph: Graph;
    kind: 'stopped' | 'failed';
    event: string;
    target: string;
    actor: string;
    detail: string;
    hooks: string[];
  }): Promise<void> {
    const { graph, kind, event, target, actor, detail, hooks } = params;
    this.log.warn({ graph: graph.name, event, target, hooks, detail }, `a ${event} hook ${kind}: ${detail}`);
    await graph.transaction((tx) =>
      tx.appendAudit({ actor, action: `hook.${kind}`, target, data: { event, hooks, detail } }),
    );
  }

  close(): Promise<void> {
    return this.sandbox.close();
  }
}
