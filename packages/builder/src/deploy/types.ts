import type { BuildManifest } from '@trelliscms/core';

/** What a deploy target can do (like an Astro adapter's supported features). */
export interface DeployCapabilities {
  /** the new version goes live in one atomic step */
  atomic: boolean;
  /** old versions are kept and can be made live again */
  rollback: boolean;
}

/** A deploy in progress: the build writes the new version's files under `dir`. */
export interface DeploySession {
  /** where to write files (a staging folder, or the live folder for in-place targets) */
  readonly dir: string;
  /** makes these files of the live version part of the new one unchanged (incremental builds) */
  carry(files: readonly string[]): Promise<void>;
  /** makes the new version live and records its manifest; `removed` are live files the new version no longer has */
  commit(params: {
    manifest: BuildManifest;
    removed: readonly string[];
    /** the manifest the new one was built from (its unchanged parts need not be written again) */
    base?: BuildManifest | null;
  }): Promise<{ bucket: string; keyPrefix: string }>;
  /** throws the staged files away */
  abort(): Promise<void>;
}

/** One deployed version of a site. */
export interface DeployedVersion {
  buildId: string;
  isLive: boolean;
  createdAt: string | null;
}

/**
 * Where builds go. Shaped like an Astro adapter: a name, its capabilities, and options
 * validated when the target is created (`invalid_deploy_options`).
 */
export interface DeployTarget {
  readonly name: string;
  readonly capabilities: DeployCapabilities;
  /** the manifest of the live build, or null when nothing is deployed */
  liveManifest(): Promise<BuildManifest | null>;
  /** the live manifest without its artifacts (cheaper: to recognise a build already known) */
  liveManifestHead?(): Promise<Omit<BuildManifest, 'artifacts'> | null>;
  /** starts deploying a new version */
  begin(params: { buildId: string }): Promise<DeploySession>;
  /** the folder holding the live files (what a static server serves), or null */
  liveDir(): string | null;
  /** makes an older version live again (targets with `capabilities.rollback`) */
  rollback?(buildId: string): Promise<{ buildId: string; previousBuildId: string | null }>;
  /** deployed versions, newest first */
  versions?(): Promise<DeployedVersion[]>;
}

/** The `deploy` member of a build result (docs/api-spec.md §2 BuildResult). */
export interface DeployResult {
  ok: boolean;
  bucket: string;
  keyPrefix: string;
  publicUrl: string | null;
  filesUploaded: number;
  filesDeleted: number;
  bytes: number;
  durationMs: number;
  serveCheck: ServeCheck | null;
}

/** A post-deploy probe of a public URL (docs/api-spec.md §2). */
export interface ServeCheck {
  ok: boolean;
  status: number;
  durationMs: number;
  url: string;
  error: string;
}
