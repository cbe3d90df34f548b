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
  /** `deps` holds nothing (known from the first hit: most partials record only view reads) */
  empty?: boolean;
}

/** Entries past which the memo starts afresh (bounds its memory). */
const MAX_ENTRIES = 50_000;
/** Characters of HTML past which the memo starts afresh. */
const MAX_CHARS = 32_000_000;
/**
 * Outputs of one partial recorded per look at whether memoizing it pays: after each this many
 * recordings of a partial, one whose outputs were hit fewer than {@link MIN_HITS_PER_WINDOW}
 * times meanwhile is no longer memoized (see {@link RenderMemo.set}).
 */
export const MEMO_WINDOW = 16_384;
/** Hits per {@link MEMO_WINDOW} recordings of a partial below which it is no longer memoized: one per eight. */
export const MIN_HITS_PER_WINDOW = MEMO_WINDOW / 8;

/** How one partial's outputs were used since the last look (see {@link MEMO_WINDOW}). */
interface PartialUse {
  recorded: number;
  hits: number;
  /** no longer memoized: too few hits for what it records */
  stopped: boolean;
}

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
/**
 * One step of the memo's keys: a render's key is the path locale → partial → (argument name →
 * argument value)…, each step a `Map` lookup by the value itself (item views and stable objects
 * by identity), so no key text is built and hashed per render.
 */
interface MemoNode {
  next: Map<unknown, MemoNode> | undefined;
  recorded: Recorded | undefined;
}

/** Steps that keep key parts apart that a `Map` would not (`-0`, HTML the build made). */
const NEGATIVE_ZERO: unique symbol = Symbol('trellis.memo.-0');
const SAFE_HTML: unique symbol = Symbol('trellis.memo.safeHtml');

function newNode(): MemoNode {
  return { next: undefined, recorded: undefined };
}

function step(node: MemoNode, key: unknown): MemoNode {
  let next = node.next;
  if (next === undefined) {
    next = new Map();
    node.next = next;
  }
  let child = next.get(key);
  if (child === undefined) {
    child = newNode();
    next.set(key, child);
  }
  return child;
}

export class RenderMemo {
  private root = newNode();
  private entries = 0;
  private chars = 0;
  private readonly stable = new WeakSet<object>();
  /**
   * Per partial (by name), whether its outputs are hit (see {@link MEMO_WINDOW}). Each recorded
   * output is kept until the memo starts afresh: long enough for V8 to promote it, with the
   * item views and items it holds, to the old generation, where it dies later and is marked
   * meanwhile. At 100,000 items a render worker recorded about 160,000 outputs of the bench
   * site's card and hit 39,000 of them, the first 20,000 recordings 10 times; the memo cost the
   * process more garbage collection than its hits saved (docs/benchmarks.md, "Build memory and
   * time, session 17").
   */
  private partials = new Map<string, PartialUse>();

  /** @param isPure whether a partial (by name) may be memoized: its closure reads no clock nor chance */
  constructor(private readonly isPure: (name: string) => boolean) {}

  /** Objects that stay the same for the memo's life, compared by identity (the site). */
  markStable(value: object): void {
    this.stable.add(value);
  }

  /** Forgets every output (the content changed), and memoizes every partial again. */
  clear(): void {
    this.forget();
    this.partials = new Map();
  }

  /** Whether the partial `file` is no longer memoized for lack of hits (see {@link MEMO_WINDOW}). */
  stopped(file: string): boolean {
    return this.partials.get(file)?.stopped === true;
  }

  private forget(): void {
    this.root = newNode();
    this.entries = 0;
    this.chars = 0;
  }

  private useOf(file: string): PartialUse {
    let use = this.partials.get(file);
    if (use === undefined) {
      use = { recorded: 0, hits: 0, stopped: false };
      this.partials.set(file, use);
    }
    return use;
  }

  /** @internal counts a render of the partial `file` served from the memo (see {@link MEMO_WINDOW}) */
  hit(file: string): void {
    this.useOf(file).hits++;
  }

  /**
   * @internal where the output of a render is kept (`recorded`, once {@link set}), or null when
   * it cannot be memoized. Two renders share it exactly when they have the same locale, partial
   * and arguments (names in the same order; texts, numbers, booleans, null and undefined by
   * value, `-0` apart from `0`; HTML the build made by its text; item views and stable objects
   * by identity).
   */
  slotOf(file: string, args: Record<string, unknown>, locale: string | null): MemoNode | null {
    if (!this.isPure(file) || this.stopped(file)) return null;
    for (const name in args) {
      const value = args[name];
      const type = typeof value;
      if (type === 'object') {
        if (
          value !== null &&
          !(value instanceof SafeHtml) &&
          !(value instanceof ItemView) &&
          !this.stable.has(value as object)
        )
          return null;
      } else if (type !== 'string' && type !== 'number' && type !== 'boolean' && type !== 'undefined') {
        return null;
      }
    }
    let node = step(step(this.root, locale ?? ''), file);
    for (const name in args) {
      const value = args[name];
      node = step(node, name);
      if (value instanceof SafeHtml) node = step(step(node, SAFE_HTML), value.html);
      else node = step(node, Object.is(value, -0) ? NEGATIVE_ZERO : value);
    }
    return node;
  }

  /**
   * @internal keeps a render's output of the partial `file` at its slot (starting afresh past
   * the memo's bounds). Every {@link MEMO_WINDOW} outputs of a partial, one whose outputs were hit
   * fewer than {@link MIN_HITS_PER_WINDOW} times meanwhile is no longer memoized, and its outputs
   * are dropped (they stay counted in the memo's bounds until it starts afresh).
   */
  set(slot: MemoNode, recorded: Recorded, file: string): void {
    const use = this.useOf(file);
    // (a recording that began before the partial stopped)
    if (use.stopped) return;
    if (++use.recorded >= MEMO_WINDOW) {
      const paid = use.hits >= MIN_HITS_PER_WINDOW;
      use.recorded = 0;
      use.hits = 0;
      if (!paid) {
        use.stopped = true;
        for (const locale of this.root.next?.values() ?? []) locale.next?.delete(file);
        return;
      }
    }
    if (this.entries >= MAX_ENTRIES || this.chars + recorded.html.length > MAX_CHARS) {
      // the slot was made in the tree being dropped: this output is not kept
      this.forget();
      return;
    }
    if (slot.recorded === undefined) this.entries++;
    slot.recorded = recorded;
    this.chars += recorded.html.length;
  }
}

/** Adds recorded dependencies to a page's (or an enclosing recording's). */
function mergeDeps(into: ArtifactDeps, from: ArtifactDeps): boolean {
  // (most partials record nothing here: their reads are view keys, replayed; `Object.assign`
  // from an empty dictionary still takes its slow path)
  let any = false;
  for (const key in from.items) {
    into.items[key] = from.items[key]!;
    any = true;
  }
  for (const key in from.templates) {
    into.templates[key] = from.templates[key]!;
    any = true;
  }
  for (const key in from.queries) {
    into.queries[key] = from.queries[key]!;
    any = true;
  }
  return any;
}

/** Adds a hit's recorded dependencies to the render in progress (no walk of them once they are known to be empty). */
function mergeHit(into: ArtifactDeps, hit: Recorded): void {
  if (hit.empty === true) return;
  hit.empty = !mergeDeps(into, hit.deps);
}

/** A recording in progress: the reads and dependencies of one partial's render, and what it replaced. */
interface Recording {
  outer: ArtifactDeps;
  deps: ArtifactDeps;
  reads: ViewRead[];
}

/** Starts recording what is read through `reader` (view reads and dependencies). */
function startRecording(reader: TrackingReader): Recording {
  const recording = { outer: reader.deps, deps: emptyDeps(), reads: [] as ViewRead[] };
  reader.deps = recording.deps;
  reader.taps.push(recording.reads);
  return recording;
}

/** Ends a recording and adds what it recorded to the render in progress. */
function endRecording(reader: TrackingReader, recording: Recording): void {
  reader.taps.splice(reader.taps.lastIndexOf(recording.reads), 1);
  reader.deps = recording.outer;
  mergeDeps(recording.outer, recording.deps);
}

/** Records what `render` reads through `reader` (view reads and dependencies), then adds it to the render in progress. */
function* recording(
  reader: TrackingReader,
  render: () => Generator<unknown, unknown, unknown>,
): Generator<unknown, Recorded, unknown> {
  const started = startRecording(reader);
  try {
    const html = String(yield* render());
    return { html, reads: started.reads, deps: started.deps };
  } finally {
    endRecording(reader, started);
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
  const started = startRecording(reader);
  try {
    const html = String(render());
    return { html, reads: started.reads, deps: started.deps };
  } finally {
    endRecording(reader, started);
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
      const slotted = memo.slotOf(file, args, reader.locale);
      const renderPartial = (): unknown => {
        const child = ctx.spawn();
        Object.assign(child.bottom(), args);
        const templates = toValueSync(
          liquid._parsePartialFile(file, child.sync, self.currentFile),
        ) as Template[];
        return toValueSync(liquid.renderer.renderTemplates(templates, child));
      };
      if (slotted === null) {
        emitter.write(renderPartial());
        return true;
      }
      const hit = slotted.recorded;
      if (hit) {
        memo.hit(file);
        replayReads(reader, hit.reads);
        mergeHit(reader.deps, hit);
        emitter.write(hit.html);
        return true;
      }
      const recorded = recordingSync(reader, renderPartial);
      memo.set(slotted, recorded, file);
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
      const slotted = memo.slotOf(file, args, reader.locale);
      const renderPartial = function* (this: void): Generator<unknown, unknown, unknown> {
        const child = ctx.spawn();
        Object.assign(child.bottom(), args);
        const templates = (yield liquid._parsePartialFile(file, child.sync, self.currentFile)) as Template[];
        return yield liquid.renderer.renderTemplates(templates, child);
      };
      if (slotted === null) {
        emitter.write(yield* renderPartial());
        return;
      }
      const hit = slotted.recorded;
      if (hit) {
        memo.hit(file);
        replayReads(reader, hit.reads);
        mergeHit(reader.deps, hit);
        emitter.write(hit.html);
        return;
      }
      const recorded = yield* recording(reader, renderPartial);
      memo.set(slotted, recorded, file);
      emitter.write(recorded.html);
    }
  }
  liquid.registerTag('render', MemoRenderTag);
}
