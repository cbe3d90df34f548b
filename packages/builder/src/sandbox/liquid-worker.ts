import { parentPort } from 'node:worker_threads';
import { checkTemplate } from '../liquid/check-template';
import { applyTransforms, hasScriptTransforms } from '../render/apply-transforms';
import type { Snapshot } from '../snapshot/types';
import type { SandboxReply, SandboxRequest, SandboxResults, TransformsResult } from './protocol';

// A sandbox worker: runs user-supplied Liquid (template checks, a build's transforms) and
// scripts (QuickJS) away from the thread that serves requests; the sandbox terminates it past
// a job's deadline.
const port = parentPort;
if (!port) throw new Error('liquid-worker runs as a worker thread');

/** QuickJS, loaded the first time a job needs it (a worker of template checks never does). */
async function scriptRunner() {
  const { loadScriptRunner } = await import('./script-runner');
  return loadScriptRunner();
}

async function transforms(
  request: Extract<SandboxRequest, { type: 'transforms' }>,
): Promise<TransformsResult> {
  const input = JSON.parse(request.snapshotJson) as Snapshot;
  const { snapshot, errors, stopped, refusals } = applyTransforms({
    snapshot: input,
    env: request.env,
    ...request.limits,
    ...(hasScriptTransforms(input) ? { runScript: await scriptRunner() } : {}),
  });
  const changed: TransformsResult['changed'] = [];
  snapshot.items.forEach((item, index) => {
    if (item !== input.items[index]) changed.push([index, item.fields]);
  });
  return { changed, errors, stopped, refusals };
}

async function handle(request: SandboxRequest): Promise<SandboxResults[SandboxRequest['type']]> {
  if (request.type === 'check') return checkTemplate(request.content);
  if (request.type === 'transforms') return transforms(request);
  const { type: _type, id: _id, ...job } = request;
  return (await scriptRunner())(job);
}

port.on('message', (request: SandboxRequest) => {
  handle(request).then(
    (result) => port.postMessage({ id: request.id, ok: true, result } satisfies SandboxReply),
    (error: unknown) =>
      port.postMessage({
        id: request.id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      } satisfies SandboxReply),
  );
});

// loaded: the sandbox starts a job's deadline from here
port.postMessage('ready');
