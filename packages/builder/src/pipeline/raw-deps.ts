import type { ArtifactDeps } from '@trelliscms/core';

/**
 * A page's dependencies kept as the JSON text the dependency spill wrote
 * (`JSON.stringify` of the worker's object), for a build that keeps no state between builds
 * (no cache): its manifest is only written out, so the dependencies need not become objects
 * again. The manifest writer copies {@link json} into a shard as it is (see
 * `deploy/manifest-files.ts`); `JSON.stringify` of an artifact holding one gives the same text
 * through {@link toJSON}; anything reading `items`, `templates` or `queries` gets them parsed
 * (once). The text is `JSON.stringify` of the original object, so parsing it and writing it
 * again gives the same bytes (same values, same key order).
 */
export class RawDeps implements ArtifactDeps {
  readonly json: string;
  #parsed: ArtifactDeps | null = null;

  constructor(json: string) {
    this.json = json;
  }

  private get value(): ArtifactDeps {
    this.#parsed ??= JSON.parse(this.json) as ArtifactDeps;
    return this.#parsed;
  }

  get items(): Record<string, string> {
    return this.value.items;
  }

  get templates(): Record<string, string> {
    return this.value.templates;
  }

  get queries(): Record<string, string> {
    return this.value.queries;
  }

  toJSON(): ArtifactDeps {
    return this.#parsed ?? (JSON.parse(this.json) as ArtifactDeps);
  }
}

/** The JSON text of dependencies, when they are held as text. */
export function rawDepsJson(deps: ArtifactDeps): string | null {
  return deps instanceof RawDeps ? deps.json : null;
}
