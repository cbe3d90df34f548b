import type { ArtifactDeps } from '@trelliscms/core/build';
import {
  type Context,
  type Emitter,
  type Hash,
  type Liquid,
  RenderTag,
  type Template,
  toValueSync,
} from 'liquidjs';
import { ItemView, replayReads, type ViewRead } from '../source/field-deps';
import { emptyDeps, type TrackingReader } from '../source/tracking-reader';
import { SafeHtml } from './create-liquid';
import { evaluateHash, SYNC_RENDER, type SyncRenderable } from './sync-render';
import type { ReaderSlot } from './tags';

/** What one memoized `{% render %}` gave: its HTML and what it read, to be read again on a hit. */
interface Recorded {
  html: string;
  reads: ViewRead[];
  deps: ArtifactDeps;
}

/** Entries past which the memo starts afresh (bounds its memory). */
const MAX_ENTRIES = 50_000;
/** Characters of HTML past which the memo starts afresh. */
const MAX_CHARS = 32_000_000;

/**
 * The output of `{% render 'name', key: value, ... %}` per (partial, locale, arguments), within
 * one snapshot state: a partial rendered for the same item on hundreds of listing pages is
 * rendered once. Only where that is provably the same output:
 *
 * - a partial sees only its arguments (liquidjs spawns it a scope of its own, no globals are
 *   set) and content through the reader, which does not change until {@link clear} (the
 *   renderer calls it whenever it moves to another snapshot);
 * - arguments are texts, numbers, booleans, null, item views (the same object for the same
 *   item version and URL: compared by identity), HTML the build made ({@link SafeHtml}) or
 *   objects registered as stable (the site); any other object (an array, `page`, a `forloop`)
 *   renders the partial as usual;
 * - `with`/`for` forms, a dynamic file name and a partial (with what it includes) that may read
 *   the clock or chance (`now`, `today`, `sample`, `shuffle`) render as usual.
 *
 * The first render records what it read (view keys, items, queries, templates) and a hit
 * records the same again for the page, so its dependencies are those of a page that rendered
 * the partial itself.
 */
export class RenderMemo {
  private readonly entries = new Map<string, Recorded>();
  private chars = 0;
  private readonly ids = new WeakMap<object, number>();
  private nextId = 1;
  private readonly stable = new WeakSet<object>();

  /** @param isPure whether a partial (by name) may be memoized: its closure reads no clock nor chance */
  constructor(private readonly isPure: (name: string) => boolean) {}

  /** Objects that stay the same for the memo's life, compared by identity (the site). */
  markStable(value: object): void {
    this.stable.add(value);
  }

  /** Forgets every output (the content changed). */
  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  /** @internal the key of a render, or null when it cannot be memoized */
  keyOf(file: string, args: Record<string, unknown>, locale: string | null): string | null {
    if (!this.isPure(file)) return null;
    let key = `${locale ?? ''}\u0000${file}`;
    for (const name in args) {
      const value = args[name];
      let part: string;
      switch (typeof value) {
        case 'string':
          part = `s${value}`;
          break;
        case 'number':
          part = `n${Object.is(value, -0) ? '-0' : String(value)}`;
          break;
        case 'boolean':
          part = value ? 'T' : 'F';
          break;
        case 'undefined':
          part = 'u';
          break;
        case 'object':
          if (value === null) part = 'z';
          else if (value instanceof SafeHtml) part = `h${value.html}`;
          else if (value instanceof ItemView || this.stable.has(value)) part = `o${this.idOf(value)}`;
          else return null;
          break;
        default:
          return null;
      }
      key += `\u0000${name}\u0001${part}`;
    }
    return key;
  }

  private idOf(value: object): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(value, id);
    }
    return id;
  }

  /** @internal */
  get(key: string): Recorded | undefined {
    return this.entries.get(key);
  }

  /** @internal */
  set(key: string, recorded: Recorded): void {
    if (this.entries.size >= MAX_ENTRIES || this.chars + recorded.html.length > MAX_CHARS) this.clear();
    this.entries.set(key, recorded);
    this.chars += recorded.html.length;
  }
}

/** Adds recorded dependencies to a page's (or an enclosing recording's). */
function mergeDeps(into: ArtifactDeps, from: ArtifactDeps): void {
  Object.assign(into.items, from.items);
  Object.assign(into.templates, from.templates);
  Object.assign(into.queries, from.queries);
}

/** Records what `render` reads through `reader` (view reads and dependencies), then adds it to the render in progress. */
function* recording(
  reader: TrackingReader,
  render: () => Generator<unknown, unknown, unknown>,
): Generator<unknown, { html: string; reads: ViewRead[]; deps: ArtifactDeps }, unknown> {
  const outer = reader.deps;
  const deps = emptyDeps();
  const reads: ViewRead[] = [];
  reader.deps = deps;
  reader.taps.push(reads);
  try {
    const html = String(yield* render());
    return { html, reads, deps };
  } finally {
    reader.taps.splice(reader.taps.lastIndexOf(reads), 1);
    reader.deps = outer;
    mergeDeps(outer, deps);
  }
}

interface RenderTagFields {
  file?: unknown;
  currentFile?: string;
  with?: unknown;
  forBinding?: unknown;
  hash: { render(ctx: Context): Generator<unknown, Record<string, unknown>, unknown> };
}

/** Records what `render` reads through `reader`, synchronously (see {@link recording}). */
function recordingSync(reader: TrackingReader, render: () => unknown): Recorded {
  const outer = reader.deps;
  const deps = emptyDeps();
  const reads: ViewRead[] = [];
  reader.deps = deps;
  reader.taps.push(reads);
  try {
    const html = String(render());
    return { html, reads, deps };
  } finally {
    reader.taps.splice(reader.taps.lastIndexOf(reads), 1);
    reader.deps = outer;
    mergeDeps(outer, deps);
  }
}

/**
 * Registers `{% render %}` with the memo of `slot.memo` (liquidjs's own tag when the slot has
 * none, or for what cannot be memoized).
 */
export function registerMemoRender(liquid: Liquid, slot: ReaderSlot): void {
  class MemoRenderTag extends RenderTag implements SyncRenderable {
    /** The same as {@link render}, without generators, in the synchronous renders of builds. */
    [SYNC_RENDER](ctx: Context, emitter: Emitter): boolean {
      const self = this as unknown as RenderTagFields;
      const memo = slot.memo;
      const reader = slot.reader;
      const file = self.file;
      if (!memo || !reader || typeof file !== 'string' || self.with || self.forBinding) return false;
      const args = evaluateHash(self.hash as unknown as Hash, ctx);
      const key = memo.keyOf(file, args, reader.locale);
      const renderPartial = (): unknown => {
        const child = ctx.spawn();
        Object.assign(child.bottom(), args);
        const templates = toValueSync(
          liquid._parsePartialFile(file, child.sync, self.currentFile),
        ) as Template[];
        return toValueSync(liquid.renderer.renderTemplates(templates, child));
      };
      if (key === null) {
        emitter.write(renderPartial());
        return true;
      }
      const hit = memo.get(key);
      if (hit) {
        replayReads(reader, hit.reads);
        mergeDeps(reader.deps, hit.deps);
        emitter.write(hit.html);
        return true;
      }
      const recorded = recordingSync(reader, renderPartial);
      memo.set(key, recorded);
      emitter.write(recorded.html);
      return true;
    }

    override *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
      const self = this as unknown as RenderTagFields;
      const memo = slot.memo;
      const reader = slot.reader;
      const file = self.file;
      if (!memo || !reader || typeof file !== 'string' || self.with || self.forBinding) {
        yield* super.render(ctx, emitter);
        return;
      }
      const args = (yield self.hash.render(ctx)) as Record<string, unknown>;
      const key = memo.keyOf(file, args, reader.locale);
      const renderPartial = function* (this: void): Generator<unknown, unknown, unknown> {
        const child = ctx.spawn();
        Object.assign(child.bottom(), args);
        const templates = (yield liquid._parsePartialFile(file, child.sync, self.currentFile)) as Template[];
        return yield liquid.renderer.renderTemplates(templates, child);
      };
      if (key === null) {
        emitter.write(yield* renderPartial());
        return;
      }
      const hit = memo.get(key);
      if (hit) {
        replayReads(reader, hit.reads);
        mergeDeps(reader.deps, hit.deps);
        emitter.write(hit.html);
        return;
      }
      const recorded = yield* recording(reader, renderPartial);
      memo.set(key, recorded);
      emitter.write(recorded.html);
    }
  }
  liquid.registerTag('render', MemoRenderTag);
}
