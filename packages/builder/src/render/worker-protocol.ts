import type { LiquidLimits } from '../liquid/create-liquid';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import type { RenderedArtifact } from './renderer';

/** Sent once to a render worker. The snapshot travels as JSON text (one copy, parsed in the worker). */
export interface WorkerInit {
  type: 'init';
  snapshotJson: string;
  env: string;
  urls: Record<string, string>;
  limits?: LiquidLimits;
  maxPageBytes?: number;
  mediaBaseUrl?: string | null;
  /** where the worker writes pages; null renders in memory only */
  outDir: string | null;
}

export interface WorkerTask {
  type: 'render';
  specs: ArtifactSpec[];
}

/** A rendered artifact as it comes back from a worker (the page itself stays on disk). */
export type WorkerArtifact = Omit<RenderedArtifact, 'html'>;

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'progress'; done: number }
  | { type: 'done'; results: WorkerArtifact[] }
  | { type: 'failed'; error: string };
