import { parentPort } from 'node:worker_threads';
import { isRenderTimeLimit } from '../liquid/create-liquid';
import type { ScriptRunner } from '../sandbox/script-runner';
import { StoreReader } from '../snapshot/shared-store';
import type { Snapshot } from '../snapshot/types';
import { type RenderedArtifact, Renderer, rendersScripts } from './renderer';
import type {
  ChunkPages,
  DoneArtifact,
  WorkerInit,
  WorkerMessage,
  WorkerPatch,
  WorkerTask,
} from './worker-protocol';

// A render worker: holds one snapshot (its items and edges in the build's shared store; patched between builds), renders the chunks it
// is given and hands the pages back (the build writes them through its deploy target).
const port = parentPort as NonNullable<typeof parentPort>;
if (!parentPort) throw new Error('render-worker runs as a worker thread');

/** What the worker holds once loaded. */
interface Held {
  snapshot: Snapshot;
  renderer: Renderer;
}
let held: Held | null = null;

function post(message: WorkerMessage): void {
  port?.postMessage(message);
}

const encoder = new TextEncoder();

/** Space the pages of a chunk are encoded into, one after the other (reused from chunk to chunk). */
const SCRATCH_BYTES = 1 << 20;
let scratch = new Uint8Array(SCRATCH_BYTES);
let scratchUsed = 0;

/**
 * A page's UTF-8 bytes, written after the chunk's earlier pages in {@link scratch} (no buffer
 * allocated per page: `joinPages` copies them into the chunk's buffer). The same bytes as
 * `encoder.encode(html)`.
 */
function encodePage(html: string): Uint8Array {
  // a UTF-16 code unit takes at most 3 bytes
  const most = html.length * 3;
  if (scratch.length - scratchUsed < most) {
    const bigger = new Uint8Array(Math.max(scratch.length * 2, scratchUsed + most));
    bigger.set(scratch.subarray(0, scratchUsed));
    scratch = bigger;
  }
  const { written } = encoder.encodeInto(html, scratch.subarray(scratchUsed));
  const page = scratch.subarray(scratchUsed, scratchUsed + written);
  scratchUsed += written;
  return page;
}

/** Starts a chunk's pages at the start of {@link scratch} (a large one left by a large page is let go). */
function resetScratch(): void {
  scratchUsed = 0;
  if (scratch.length > 4 * SCRATCH_BYTES) scratch = new Uint8Array(SCRATCH_BYTES);
}

/** A chunk's pages in one buffer (transferred to the build's thread, see {@link ChunkPages}). */
function joinPages(pages: ReadonlyArray<Uint8Array | null>): ChunkPages {
  let total = 0;
  for (const page of pages) total += page?.length ?? 0;
  const bytes = new Uint8Array(total);
  const ends: number[] = [];
  let at = 0;
  for (const page of pages) {
    if (page) bytes.set(page, at);
    at += page?.length ?? 0;
    ends.push(at);
  }
  return { bytes, ends };
}

/**
 * What the build's thread gets of a rendered artifact: every member of {@link RenderedArtifact}
 * but `html` and `page` (sent apart, in the chunk's buffer), in the same order: what
 * `{ html, page, ...rest }` gave as `rest`, without its generic copy (a runtime call per page).
 * A member added to `RenderedArtifact` is added here too. With `depsJson`, the dependencies
 * as their JSON text (see `DoneArtifact`).
 */
function withoutPage(rendered: RenderedArtifact, depsJson: boolean): DoneArtifact {
  const { key, file, bytes, hash, deps } = rendered;
  const rest: DoneArtifact = { key, file, bytes, hash, deps: depsJson ? JSON.stringify(deps) : deps };
  // members the renderer sets only on some artifacts (kept when present, even undefined, as a copy keeps them)
  if ('error' in rendered) rest.error = rendered.error;
  if ('template' in rendered) rest.template = rendered.template;
  if ('undefinedVariables' in rendered) rest.undefinedVariables = rendered.undefinedVariables;
  return rest;
}

function loaded(): Held {
  if (!held) throw new Error('the worker was given work before a snapshot');
  return held;
}

// Messages are handled in order; an init that loads QuickJS holds the ones after it until done.
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: WorkerInit | WorkerPatch | WorkerTask) => {
  queue = queue.then(() => handle(message));
});

function handle(message: WorkerInit | WorkerPatch | WorkerTask): Promise<void> | undefined {
  try {
    if (message.type === 'init') {
      const { frame, store: shared, type: _type, ...settings } = message;
      // the items and edges stay in the shared store (read on demand), not in this snapshot
      const store = new StoreReader(shared);
      const snapshot: Snapshot = { ...frame, items: [], edges: [] };
      held = null;
      const start = (runScript?: ScriptRunner) => {
        held = {
          snapshot,
          renderer: new Renderer({
            snapshot,
            env: settings.env,
            urls: settings.urls,
            limits: settings.limits,
            maxPageBytes: settings.maxPageBytes,
            mediaBaseUrl: settings.mediaBaseUrl,
            runScript,
            encodePages: true,
            encodePage,
            lists: settings.lists,
            store,
          }),
        };
        held.renderer.prepare();
        post({ type: 'ready' });
      };
      // afterRender scripts need QuickJS, loaded (once per worker) before the worker is ready
      if (rendersScripts(snapshot)) {
        // imported here: QuickJS stays out of the heap of workers that never run a script
        return import('../sandbox/script-runner')
          .then(({ loadScriptRunner }) => loadScriptRunner())
          .then(start, (error: unknown) => {
            post({ type: 'failed', error: `QuickJS could not load: ${String(error)}` });
          });
      }
      start();
      return;
    }
    if (message.type === 'patch') {
      const current = loaded();
      // the renderer's source holds the changed items (the snapshot's are in the shared store)
      const snapshot = current.snapshot;
      current.renderer.update({
        snapshot,
        items: message.items,
        removed: message.removed,
        urls: message.urls,
      });
      post({ type: 'ready' });
      return;
    }
    const { renderer } = loaded();
    // the pages of the chunk before were copied out (or dropped with it)
    resetScratch();
    const results: DoneArtifact[] = [];
    const depsJson = message.depsJson === true;
    const pages: Array<Uint8Array | null> = [];
    // progress every 25 pages, or every half second of slow pages (the pool's stall watchdog)
    let unreported = 0;
    let reportedAt = performance.now();
    for (const spec of message.specs) {
      const rendered = renderer.render(spec);
      const { html, page } = rendered;
      if (rendered.error !== undefined && isRenderTimeLimit(rendered.error)) {
        // a page that loops until the limit: the next ones of its template would too
        post({ type: 'limit', key: spec.key, template: rendered.template ?? null, error: rendered.error });
        return;
      }
      results.push(withoutPage(rendered, depsJson));
      if (message.pages) pages.push(html === undefined ? null : (page ?? encoder.encode(html)));
      unreported++;
      if (unreported === 25 || performance.now() - reportedAt >= 500) {
        post({ type: 'progress', done: unreported });
        unreported = 0;
        reportedAt = performance.now();
      }
    }
    if (unreported > 0) post({ type: 'progress', done: unreported });
    if (!message.pages) {
      post({ type: 'done', results, pages: null });
      return;
    }
    const chunk = joinPages(pages);
    port.postMessage({ type: 'done', results, pages: chunk } satisfies WorkerMessage, [
      chunk.bytes.buffer as ArrayBuffer,
    ]);
  } catch (error) {
    post({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
  }
}
