import { parentPort } from 'node:worker_threads';
import { checkTemplate } from '../liquid/check-template';
import { applyTransforms } from '../render/apply-transforms';
import type { Snapshot } from '../snapshot/types';
import type { SandboxReply, SandboxRequest, TransformsResult } from './protocol';

// A Liquid sandbox worker: runs user-supplied Liquid (template checks, a build's transforms)
// away from the thread that serves requests; the sandbox terminates it past a job's deadline.
const port = parentPort;
if (!port) throw new Error('liquid-worker runs as a worker thread');

function transforms(request: Extract<SandboxRequest, { type: 'transforms' }>): TransformsResult {
  const input = JSON.parse(request.snapshotJson) as Snapshot;
  const { snapshot, errors, stopped } = applyTransforms({
    snapshot: input,
    env: request.env,
    ...request.limits,
  });
  const changed: TransformsResult['changed'] = [];
  snapshot.items.forEach((item, index) => {
    if (item !== input.items[index]) changed.push([index, item.fields]);
  });
  return { changed, errors, stopped };
}

port.on('message', (request: SandboxRequest) => {
  let reply: SandboxReply;
  try {
    const result = request.type === 'check' ? checkTemplate(request.content) : transforms(request);
    reply = { id: request.id, ok: true, result };
  } catch (error) {
    reply = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});

// loaded: the sandbox starts a job's deadline from here
port.postMessage('ready');
