import type { BuildManifest } from '@trelliscms/core';

/** What a deploy target can do (like an Astro adapter's supported features). */
export interface DeployCapabilities {
  /** the new version goes live in one atomic step */
  atomic: boolean;
  /** old versions are kept and can be made live again */
  rollback: boolean;
}

/**
 * A deploy in progress: every file of the new version is written through it (pages, listings,
 * sitemap, search index), unchanged files of the live version are carried over, and `commit`
 * makes the new version live (or `abort` throws it away, leaving the live version as it is).
 */
export interface WriteSession {
  /** writes one file of the new version (`path` relative to the site root, `/`-separated) */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** makes these files of the live version part of the new one unchanged (incremental builds) */
  carry(files: readonly string[]): Promise<void>;
  /** makes the new version live and records its manifest; `removed` are live files the new version no longer has */
  commit(params: {
    manifest: BuildManifest;
    removed: readonly string[];
    /** the manifest the new one was built from (its unchanged parts need not be written again) */
    base?: BuildManifest | null;
  }): Promise<{ bucket: string; keyPrefix: string }>;
  /** throws the written files away; the live version stays live */
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
  /** starts deploying a new version: every file of it goes through the session */
  open(params: { buildId: string }): Promise<WriteSession>;
  /** the folder holding the live files (what a static server serves), or null */
  liveDir(): string | null;
  /** makes an older version live again (targets with `capabilities.rollback`) */
  rollback?(buildId: string): Promise<{ buildId: string; previousBuildId: string | null }>;
  /** deployed versions, newest first */
  versions?(): Promise<DeployedVersion[]>;
}
