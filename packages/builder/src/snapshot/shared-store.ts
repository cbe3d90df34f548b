import type { Snapshot, SnapshotEdge, SnapshotItem } from './types';

// Shared, read-only storage of a snapshot's items for the build's threads: the items' long
// text values (markdown bodies, mostly) live once in SharedArrayBuffers, and the items hold
// accessors that decode them when read. The render workers receive the items as records in
// shared memory (no JSON text of the whole snapshot, no private copy of every body per thread).

/** Field values (strings) at least this long are stored in shared memory and read on demand. */
export const LONG_TEXT_CHARS = 256;

/** Size of a shared segment (a longer value gets a segment of its own size). */
const SEGMENT_BYTES = 32 * 1024 * 1024;

/** Where a value's UTF-8 bytes are: segment, offset, length. */
export type TextRef = readonly [segment: number, offset: number, length: number];

/** Append-only UTF-8 text in SharedArrayBuffer segments (readable from any thread given the segments). */
export class SharedText {
  readonly segments: SharedArrayBuffer[];
  private readonly views: Buffer[];
  private at = 0;

  constructor(segments: SharedArrayBuffer[] = []) {
    this.segments = segments;
    this.views = segments.map((segment) => Buffer.from(segment));
    this.at = segments.length > 0 ? Number.POSITIVE_INFINITY : 0;
  }

  /** Adds a segment of another store (read only here); returns its index. */
  adopt(segment: SharedArrayBuffer): number {
    this.segments.push(segment);
    this.views.push(Buffer.from(segment));
    // appends go to a segment of this store's own
    this.at = Number.POSITIVE_INFINITY;
    return this.segments.length - 1;
  }

  /** Stores a string; returns where it is. */
  append(text: string): TextRef {
    const length = Buffer.byteLength(text, 'utf8');
    let view = this.views[this.views.length - 1];
    if (!view || this.at + length > view.length) {
      const segment = new SharedArrayBuffer(Math.max(SEGMENT_BYTES, length));
      this.segments.push(segment);
      view = Buffer.from(segment);
      this.views.push(view);
      this.at = 0;
    }
    const offset = this.at;
    view.write(text, offset, length, 'utf8');
    this.at += length;
    return [this.views.length - 1, offset, length];
  }

  /** The string stored at `ref`. */
  text(ref: TextRef): string {
    const view = this.views[ref[0]];
    if (!view) throw new Error(`shared text segment ${ref[0]} is missing`);
    return view.toString('utf8', ref[1], ref[1] + ref[2]);
  }

  /** Bytes in use. */
  get bytes(): number {
    let total = 0;
    for (let i = 0; i < this.views.length - 1; i++) total += this.views[i]!.length;
    return total + (this.views.length > 0 ? Math.min(this.at, this.views[this.views.length - 1]!.length) : 0);
  }
}

/** The long values of a fields object kept in shared memory, by key (a hidden member of the object). */
const LONG = Symbol('trellis.sharedFields');
type LongValues = Map<string, { store: SharedText; ref: TextRef }>;

function longValuesOf(fields: object): LongValues | undefined {
  return (fields as { [LONG]?: LongValues })[LONG];
}

/**
 * Makes `fields[key]` read its value from `store` on demand (an enumerable accessor in the
 * key's place: JSON, spreads and structured clones see the string). Assigning a value makes it
 * a plain member again.
 */
export function defineSharedField(
  fields: Record<string, unknown>,
  key: string,
  store: SharedText,
  ref: TextRef,
) {
  let long = longValuesOf(fields);
  if (!long) {
    long = new Map();
    Object.defineProperty(fields, LONG, { value: long });
  }
  long.set(key, { store, ref });
  Object.defineProperty(fields, key, {
    get: () => store.text(ref),
    set(value: unknown) {
      longValuesOf(fields)?.delete(key);
      Object.defineProperty(fields, key, { value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  });
}

/**
 * `{ ...fields }` that leaves the long values in shared memory: the same keys in the same
 * order with the same values, those kept in shared memory read on demand as in `fields`
 * (a spread would make a private copy of each, a whole body per object).
 */
export function spreadFields(fields: Record<string, unknown>): Record<string, unknown> {
  const long = longValuesOf(fields);
  if (!long) return { ...fields };
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    const shared = long.get(key);
    if (shared) defineSharedField(copy, key, shared.store, shared.ref);
    else
      Object.defineProperty(copy, key, {
        value: fields[key],
        writable: true,
        enumerable: true,
        configurable: true,
      });
  }
  return copy;
}

/** Moves an item's long string fields into `store` (in place); returns the item. */
export function shareLongFields<T extends SnapshotItem>(item: T, store: SharedText): T {
  const fields = item.fields as Record<string, unknown> | null;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return item;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (typeof value === 'string' && value.length >= LONG_TEXT_CHARS && key !== '__proto__') {
      defineSharedField(fields, key, store, store.append(value));
    }
  }
  return item;
}

/**
 * A snapshot's items as the render workers receive them: each item's JSON record (its long
 * values left out: `null` in their place) in `records`, the long values in `texts`; all shared.
 */
export interface SharedItems {
  count: number;
  /** per item: records segment, offset, length (Float64: offsets past 2 GB) */
  index: SharedArrayBuffer;
  records: SharedArrayBuffer[];
  texts: SharedArrayBuffer[];
}

/** A record: the item without its long values, and where each of them is (`[key, segment, offset, length]`). */
type ItemRecord = [item: SnapshotItem, long: Array<[string, number, number, number]> | 0];

/**
 * Packs items for the workers. Long values already in shared memory (items read by
 * `readSnapshotFile`) are not copied: their segments are shared as they are.
 */
export function packItems(items: readonly SnapshotItem[]): { shared: SharedItems; recordBytes: number } {
  const records = new SharedText();
  const texts = new SharedText();
  // segments of other stores, by identity → their index in `texts.segments`
  const adopted = new Map<SharedArrayBuffer, number>();
  const index = new Float64Array(new SharedArrayBuffer(Math.max(1, items.length) * 3 * 8));
  items.forEach((item, i) => {
    const fields = item.fields as Record<string, unknown>;
    let record: ItemRecord;
    if (typeof fields === 'object' && fields !== null && !Array.isArray(fields)) {
      const stored = longValuesOf(fields);
      const long: Array<[string, number, number, number]> = [];
      const plain: Record<string, unknown> = {};
      for (const key of Object.keys(fields)) {
        const shared = stored?.get(key);
        if (shared) {
          const segment = shared.store.segments[shared.ref[0]]!;
          let at = adopted.get(segment);
          if (at === undefined) {
            at = texts.adopt(segment);
            adopted.set(segment, at);
          }
          plain[key] = null;
          long.push([key, at, shared.ref[1], shared.ref[2]]);
          continue;
        }
        const value = fields[key];
        if (typeof value === 'string' && value.length >= LONG_TEXT_CHARS && key !== '__proto__') {
          const ref = texts.append(value);
          plain[key] = null;
          long.push([key, ref[0], ref[1], ref[2]]);
        } else if (key === '__proto__') {
          Object.defineProperty(plain, key, { value, writable: true, enumerable: true, configurable: true });
        } else plain[key] = value;
      }
      record = [{ ...item, fields: plain }, long.length > 0 ? long : 0];
    } else record = [item, 0];
    const ref = records.append(JSON.stringify(record));
    index[i * 3] = ref[0];
    index[i * 3 + 1] = ref[1];
    index[i * 3 + 2] = ref[2];
  });
  return {
    shared: {
      count: items.length,
      index: index.buffer as SharedArrayBuffer,
      records: records.segments,
      texts: texts.segments,
    },
    recordBytes: records.bytes,
  };
}

/** The items packed by {@link packItems}, long values read on demand from the shared texts. */
export function unpackItems(shared: SharedItems): SnapshotItem[] {
  const records = new SharedText(shared.records);
  const texts = new SharedText(shared.texts);
  const index = new Float64Array(shared.index);
  const items = new Array<SnapshotItem>(shared.count);
  for (let i = 0; i < shared.count; i++) {
    const [item, long] = JSON.parse(
      records.text([index[i * 3]!, index[i * 3 + 1]!, index[i * 3 + 2]!]),
    ) as ItemRecord;
    if (long !== 0) {
      const fields = item.fields as Record<string, unknown>;
      for (const [key, segment, offset, length] of long)
        defineSharedField(fields, key, texts, [segment, offset, length]);
    }
    items[i] = item;
  }
  return items;
}

/**
 * A snapshot without its items (what travels to the workers by structured clone beside
 * {@link SharedItems}), and without its edges when they travel as {@link SharedEdges}.
 */
export type SnapshotFrame = Omit<Snapshot, 'items' | 'edges'> & { edges?: SnapshotEdge[] };

export function frameOf(snapshot: Snapshot, edgesPacked: boolean): SnapshotFrame {
  const { items: _items, edges, ...frame } = snapshot;
  return edgesPacked ? frame : { ...frame, edges };
}

/**
 * A snapshot's edges as the render workers receive them: four Int32 per edge in shared memory
 * (`from`, `edge`, `to` as indices into the items' ids then `strings`; `props` as an index into
 * `props`, -1 for none), instead of a structured clone of every edge (its three strings copied
 * into each worker). The workers make the edges again with the items' own id strings.
 */
export interface SharedEdges {
  count: number;
  table: SharedArrayBuffer;
  /** ids of no item of the snapshot, and the edge labels */
  strings: string[];
  /** each edge's `props`, as JSON */
  props: string[];
}

/**
 * Packs edges for the workers (see {@link SharedEdges}), the string `from`/`edge`/`to` of an
 * edge given as indices into `items`' ids where they are one. Null when an edge has members
 * other than `from`, `edge`, `to` and `props` in that order (they travel as they are then).
 */
export function packEdges(
  edges: readonly SnapshotEdge[],
  items: readonly SnapshotItem[],
): SharedEdges | null {
  const at = new Map<string, number>();
  items.forEach((item, i) => {
    if (!at.has(item.id)) at.set(item.id, i);
  });
  const strings: string[] = [];
  const props: string[] = [];
  const indexOf = (value: string): number => {
    let index = at.get(value);
    if (index === undefined) {
      index = items.length + strings.length;
      strings.push(value);
      at.set(value, index);
    }
    return index;
  };
  const table = new Int32Array(new SharedArrayBuffer(Math.max(1, edges.length) * 16));
  for (let i = 0; i < edges.length; i++) {
    const edge = edges[i]!;
    if (!isPlainEdge(edge)) return null;
    table[i * 4] = indexOf(edge.from);
    table[i * 4 + 1] = indexOf(edge.edge);
    table[i * 4 + 2] = indexOf(edge.to);
    if (edge.props === undefined) table[i * 4 + 3] = -1;
    else {
      table[i * 4 + 3] = props.length;
      props.push(JSON.stringify(edge.props));
    }
  }
  return { count: edges.length, table: table.buffer as SharedArrayBuffer, strings, props };
}

/** Whether an edge is `{from, edge, to}` or `{from, edge, to, props}` (an object), strings in that order. */
function isPlainEdge(edge: SnapshotEdge): boolean {
  if (typeof edge.from !== 'string' || typeof edge.edge !== 'string' || typeof edge.to !== 'string')
    return false;
  const keys = Object.keys(edge);
  if (keys[0] !== 'from' || keys[1] !== 'edge' || keys[2] !== 'to') return false;
  if (keys.length === 3) return true;
  return (
    keys.length === 4 &&
    keys[3] === 'props' &&
    typeof edge.props === 'object' &&
    edge.props !== null &&
    !Array.isArray(edge.props)
  );
}

/** The edges packed by {@link packEdges}, their ids the same strings as `items`' ids. */
export function unpackEdges(shared: SharedEdges, items: readonly SnapshotItem[]): SnapshotEdge[] {
  const table = new Int32Array(shared.table);
  const count = items.length;
  const string = (index: number): string =>
    index < count ? items[index]!.id : shared.strings[index - count]!;
  const edges = new Array<SnapshotEdge>(shared.count);
  for (let i = 0; i < shared.count; i++) {
    const p = table[i * 4 + 3]!;
    const edge: SnapshotEdge = {
      from: string(table[i * 4]!),
      edge: string(table[i * 4 + 1]!),
      to: string(table[i * 4 + 2]!),
    };
    if (p >= 0) edge.props = JSON.parse(shared.props[p]!);
    edges[i] = edge;
  }
  return edges;
}
