import type { TransformError } from '@trelliscms/core';
import type { TemplateProblem } from '../liquid/check-template';
import type { TransformLimits, TransformRefusal } from '../render/apply-transforms';
import type { ScriptJobInput, ScriptOutcome } from './script-runner';

/** Parses a template with the site's Liquid environment (see `checkTemplate`). */
export interface CheckJob {
  type: 'check';
  content: string;
}

/** Runs a build's transforms (see `applyTransforms`); the snapshot travels as JSON text. */
export interface TransformsJob {
  type: 'transforms';
  snapshotJson: string;
  env: string;
  limits: TransformLimits;
}

/** Runs one script in QuickJS (see `loadScriptRunner`). */
export interface ScriptJob extends ScriptJobInput {
  type: 'script';
}

export type SandboxJob = CheckJob | TransformsJob | ScriptJob;

/** What a transforms job sends back: the fields of the items it changed, by index. */
export interface TransformsResult {
  changed: Array<[index: number, fields: Record<string, unknown>]>;
  errors: TransformError[];
  stopped: string | null;
  refusals: TransformRefusal[];
}

/** The result of each kind of job. */
export interface SandboxResults {
  check: TemplateProblem | null;
  transforms: TransformsResult;
  script: ScriptOutcome;
}

export type SandboxRequest = SandboxJob & { id: number };

export type SandboxReply =
  | { id: number; ok: true; result: SandboxResults[SandboxJob['type']] }
  | { id: number; ok: false; error: string };
