import type { LiquidLimits } from '../liquid/create-liquid';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import type { SharedStore, SnapshotFrame } from '../snapshot/shared-store';
import type { SnapshotItem } from '../snapshot/types';
import type { SharedList } from '../source/snapshot-source';
import type { RenderedArtifact } from './renderer';

/**
 * Loads a snapshot into a render worker: everything but the items and edges by structured
 * clone (`frame`), the items and edges as a read-only store in shared memory (records parsed
 * when read, the indexes by id and type and the edges' adjacency as typed arrays: see
 * `snapshot/shared-store.ts`), one for every worker: no worker holds a private copy of them.
 */
export interface WorkerInit {
  type: 'init';
  frame: SnapshotFrame;
  store: SharedStore;
  env: string;
  urls: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  limits?: LiquidLimits;
  maxPageBytes?: number;
  mediaBaseUrl?: string | null;
  /** the lists the build's planning sorted, as positions in shared memory (not sorted again by each worker) */
  lists?: readonly SharedList[];
}

/**
 * Updates the loaded snapshot: changed or new items replace or join it, `removed` ids leave it;
 * `urls` holds the page paths that changed (null: the item has no page now).
 */
export interface WorkerPatch {
  type: 'patch';
  items: SnapshotItem[];
  removed: string[];
  urls: Record<string, string | null>;
}

/**
 * Renders a chunk; with `pages`, each page's HTML comes back with its record (else the records
 * only); with `depsJson`, each record's dependencies come back as their JSON text (see
 * {@link DoneArtifact}).
 */
export interface WorkerTask {
  type: 'render';
  specs: ArtifactSpec[];
  pages: boolean;
  depsJson?: boolean;
}

/** A rendered artifact without its page (what a build keeps once the page is written). */
export type WorkerArtifact = Omit<RenderedArtifact, 'html'>;

/**
 * A rendered artifact as a chunk's `done` message carries it: its dependencies as an object, or,
 * when the task asked for `depsJson`, as `JSON.stringify` of that object (the build's
 * dependency spill writes that text as it is: a string crosses to the build's thread as one
 * copy, where an object of dictionaries is serialized and rebuilt key by key, only for the
 * spill to turn it back into JSON).
 */
export type DoneArtifact = Omit<WorkerArtifact, 'deps'> & { deps: WorkerArtifact['deps'] | string };

/** A rendered page, handed to the build's write session (UTF-8 bytes when it comes from a worker). */
export interface RenderedPage {
  file: string;
  html: string | Uint8Array;
}

/**
 * A chunk's pages as one transferred buffer of UTF-8 bytes (no copy, and no strings on the
 * build's thread): the page of `results[i]` is `bytes[ends[i - 1] .. ends[i])`, empty when
 * the artifact has no page (it failed).
 */
export interface ChunkPages {
  bytes: Uint8Array;
  ends: number[];
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'progress'; done: number }
  | { type: 'done'; results: DoneArtifact[]; pages: ChunkPages | null }
  | { type: 'failed'; error: string }
  /** a page ran past the render time limit: the worker stopped its chunk, the pool stops the run */
  | { type: 'limit'; key: string; template: string | null; error: string };
