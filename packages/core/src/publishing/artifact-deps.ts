/**
 * What one rendered artifact read, each with the hash it had at render time. An artifact needs
 * re-rendering when any of these hashes differs now. An item, template or query that did not
 * exist is recorded with the hash `''`, so its appearance also counts as a change.
 */
export interface ArtifactDeps {
  /** item id → the item's content hash (or, from the builder, a hash of the fields the artifact read) */
  items: Record<string, string>;
  /** template name → hash of its content (layouts and partials included) */
  templates: Record<string, string>;
  /** canonical query key (`list`, `traverse`, `similar`) → hash of its result (ids, hashes, urls) */
  queries: Record<string, string>;
}

/** One artifact of a previous build, as recorded in its manifest. */
export interface ManifestArtifact {
  /** stable identity across builds: `item:<id>`, `route:<path>#<page>`, `file:sitemap.xml` */
  key: string;
  /** output file path relative to the site root, e.g. `blog/hello/index.html` */
  file: string;
  /** sha256 of the file's bytes */
  hash: string;
  bytes: number;
  deps: ArtifactDeps;
}

/**
 * The newest audit record of a site's graph when a build read it: a copy of the chain's head
 * kept outside the graph, so that a chain later cut short or rewritten no longer matches it.
 * `mac` is the server's HMAC over graph, seq and hash (only the server can check or forge it).
 */
export interface AuditHeadAnchor {
  graph: string;
  seq: number;
  hash: string;
  mac: string;
}

/** The record a build leaves for the next incremental build of the same site and environment. */
export interface BuildManifest {
  format: 'trellis-build-manifest';
  version: 1;
  buildId: string;
  env: string;
  /** hash of everything that, when changed, forces a full build (site settings, types, transforms, routes, builder version) */
  globalHash: string;
  /** hash of the edges between items visible in `env`; while it holds, traversals only change through the items they return */
  graphHash?: string;
  createdAt: string;
  /** the head of the site's audit chain the build's content was read at, when the caller gave one */
  auditHead?: AuditHeadAnchor;
  artifacts: ManifestArtifact[];
}

/** Answers "what is the hash of X now" for {@link impactedArtifacts}; `''` when X does not exist. */
export interface DependencyReader {
  /**
   * the current dependency hash of an item; `recorded` (what the page recorded) tells a reader
   * that records items per field which of the item's fields to hash
   */
  itemHash(id: string, recorded?: string): string;
  templateHash(name: string): string;
  /** the current hash of a query's result; `recorded` may be returned when the reader knows the result cannot have changed */
  queryHash(key: string, recorded: string): string;
}

/** An empty dependency record. */
export function emptyDeps(): ArtifactDeps {
  return { items: {}, templates: {}, queries: {} };
}
