import type { Script, Transform } from '@trelliscms/core';
import type { Graph } from '../engines/port';
import { OTHER_RESOURCES, TRANSFORMS } from '../site-resources/resource-specs';
import { listSiteResources } from '../site-resources/site-resources';
import type { ScriptHost } from './script-host';

const SCRIPTS = OTHER_RESOURCES.find((spec) => spec.base === 'scripts')!;

/** What an `afterBuild` hook is told of the build. */
export interface BuildSummary {
  buildId: string;
  env: string;
  ok: boolean;
  mode: string;
  artifacts: number;
  durationMs: number;
}

/**
 * Runs the site's `afterBuild` hooks once a build is recorded: the enabled scripts bound to
 * `afterBuild` and the enabled `script` transforms of that event (other kinds have no item to
 * change and are skipped), each in the sandbox with `{event, build, site}` as its input. What
 * each gave (its value, its `console.log` lines, or why it failed or was stopped) is recorded in
 * the audit chain as `hook.afterBuild` on the build; a stopped one also as `hook.stopped`.
 */
export async function runAfterBuildHooks(params: {
  graph: Graph;
  host: ScriptHost;
  site: { id: string; name: string; publicUrl?: string | null };
  actor: string;
  build: BuildSummary;
}): Promise<number> {
  const { graph, host, build, actor } = params;
  const [transforms, scripts] = await Promise.all([
    listSiteResources(graph, TRANSFORMS) as Promise<Transform[]>,
    listSiteResources(graph, SCRIPTS) as Promise<Script[]>,
  ]);
  const byName = new Map(scripts.map((script) => [script.name, script]));
  const hooks: Array<{ hook: string; script: Script | undefined; order: number }> = [
    ...transforms
      .filter((t) => t.event === 'afterBuild' && t.enabled !== false && t.kind === 'script')
      .map((t) => ({ hook: t.name, script: byName.get(t.script ?? ''), order: t.order ?? 0 })),
    ...scripts
      .filter((s) => s.event === 'afterBuild' && s.enabled !== false)
      .map((s) => ({ hook: `script ${s.name}`, script: s, order: 0 })),
  ].sort((a, b) => a.order - b.order || a.hook.localeCompare(b.hook));
  const target = `build:${build.buildId}`;
  for (const { hook, script } of hooks) {
    if (!script || script.enabled === false) {
      await host.report({
        graph,
        kind: 'failed',
        event: 'afterBuild',
        target,
        actor,
        detail: `${hook}: its script does not exist or is disabled`,
        hooks: [hook],
      });
      continue;
    }
    const outcome = await host.run({
      name: script.name,
      source: script.source,
      input: { event: 'afterBuild', build, site: params.site },
      timeoutMs: script.timeoutMs,
      memoryMb: script.memoryMb,
    });
    if (outcome.status === 'stopped') {
      await host.report({
        graph,
        kind: 'stopped',
        event: 'afterBuild',
        target,
        actor,
        detail: outcome.message,
        hooks: [hook],
      });
    }
    const value = outcome.status === 'ok' ? JSON.stringify(outcome.value ?? null).slice(0, 4000) : null;
    await graph.transaction((tx) =>
      tx.appendAudit({
        actor,
        action: 'hook.afterBuild',
        target,
        data: {
          hook,
          status: outcome.status,
          ...(value !== null ? { value } : {}),
          ...(outcome.status !== 'ok' ? { message: outcome.message } : {}),
          logs: outcome.logs.slice(0, 20),
        },
      }),
    );
  }
  return hooks.length;
}
