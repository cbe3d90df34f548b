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
 * A commit with `activate: false` records the version without making it live: it is complete
 * (carried files included) and goes live later with {@link DeployTarget.activate}.
 */
export interface WriteSession {
  /** writes one file of the new version (`path` relative to the site root, `/`-separated) */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /**
   * a local folder the new version's files may also be written into directly, by any thread and
   * with plain file-system calls, to the same effect as {@link writeFile} (a file at `path`
   * under it, written in place; its parent folders made as needed); absent when files must go
   * through `writeFile`
   */
  readonly pageFolder?: string;
  /** makes these files of the live version part of the new one unchanged (incremental builds) */
  carry(files: readonly string[]): Promise<void>;
  /**
   * records the new version and its manifest and makes it live (unless `activate` is false);
   * `removed` are live files the new version no longer has
   */
  commit(params: CommitParams): Promise<{ bucket: string; keyPrefix: string }>;
  /** throws the written files away; the live version stays live */
  abort(): Promise<void>;
}

/** What {@link WriteSession.commit} records. */
export interface CommitParams {
  manifest: BuildManifest;
  /** files of the live version the new one no longer has */
  removed: readonly string[];
  /** the manifest the new one was built from (its unchanged parts need not be written again) */
  base?: BuildManifest | null;
  /**
   * make the new version live (default true). false: the version and its manifest are kept
   * exactly as a live commit keeps them, but the live version stays live; a target that keeps no
   * versions throws `invalid_deploy_options`
   */
  activate?: boolean;
}

/** A switch of the live version: the version now live, and the one that was (null: none). */
export interface ActivateResult {
  buildId: string;
  previousBuildId: string | null;
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
  /**
   * starts deploying a new version: every file of it goes through the session. `activate: false`
   * says the session will commit without going live: a target that keeps no versions refuses it
   * here (`invalid_deploy_options`), before anything is written
   */
  open(params: { buildId: string; activate?: boolean }): Promise<WriteSession>;
  /** the folder holding the live files (what a static server serves), or null */
  liveDir(): string | null;
  /** the build id of the live version, or null when nothing is live (targets that keep versions) */
  liveBuildId?(): string | null;
  /**
   * makes a committed version live in one atomic switch: one committed with `activate: false`,
   * or an older one (targets that keep versions); `build_version_not_found` for an unknown build
   */
  activate?(buildId: string): Promise<ActivateResult>;
  /** makes an older version live again (targets with `capabilities.rollback`; the same switch as `activate`) */
  rollback?(buildId: string): Promise<ActivateResult>;
  /** deployed versions, newest first */
  versions?(): Promise<DeployedVersion[]>;
  /**
   * deletes old versions (targets that keep versions): every version but the live one, those in
   * `protect` and the `keep` newest; their manifests go too, and manifest shards no remaining
   * manifest names. Returns the build ids removed, oldest first
   */
  prune?(params: PruneParams): Promise<PruneResult>;
  /**
   * Where an object-storage target keeps the site (the S3 target): its bucket, the key prefix
   * of its versions (or, in the flat layout, of the live files) and its layout. Absent for local
   * targets.
   */
  readonly location?: { bucket: string; keyPrefix: string; layout: 'versioned' | 'flat' };
  /** the build id of the live version read from the store itself (not a cached pointer) */
  readLiveBuildId?(): Promise<string | null>;
  /** whether a committed version of `buildId` is kept (it can be made live) */
  hasVersion?(buildId: string): Promise<boolean>;
  /**
   * one file of the live version, read from the store (targets without a `liveDir`): `path`
   * relative to the site root; a folder (or '') gives its `index.html`; null when there is none
   */
  readLiveFile?(path: string): Promise<StoredFile | null>;
}

/** A file read from a target's store ({@link DeployTarget.readLiveFile}). */
export interface StoredFile {
  /** the path it was found at (e.g. `blog/index.html` for `blog`) */
  path: string;
  body: NodeJS.ReadableStream;
  bytes: number | null;
  contentType: string | null;
  etag: string | null;
}

/** What {@link DeployTarget.prune} keeps. */
export interface PruneParams {
  /** how many of the newest versions to keep (the live one counts among them when it is one of them) */
  keep: number;
  /** build ids never removed (e.g. prebuilt versions waiting for their scheduled switch) */
  protect?: ReadonlySet<string>;
}

/** What {@link DeployTarget.prune} removed. */
export interface PruneResult {
  removed: string[];
  /** versions left, the live one included */
  kept: number;
}
