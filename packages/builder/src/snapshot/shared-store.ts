import type { Snapshot, SnapshotItem } from './types';

// Shared, read-only storage of a snapshot's items for the build's threads: the items' long
// text values (markdown bodies, mostly) live once in SharedArrayBuffers, and the items hold
// accessors that decode them when read. The render workers read the items and edges from a
// store in shared memory (`SharedStore`): each item's record parsed when a page reads it, the
// indexes by id and type and the edges' adjacency as typed arrays, one copy for every worker.

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

/** A snapshot without its items and edges: what travels to the workers by structured clone beside a {@link SharedStore}. */
export type SnapshotFrame = Omit<Snapshot, 'items' | 'edges'>;

export function frameOf(snapshot: Snapshot): SnapshotFrame {
  const { items: _items, edges: _edges, ...frame } = snapshot;
  return frame;
}

/**
 * The render workers' read-only store of a snapshot's items and edges, made once on the build's
 * thread and shared by every worker (nothing of it is copied into a worker's heap):
 *
 * - `items`: each item's record as JSON (see {@link packItems}), parsed when a page reads it;
 * - the nodes' ids as UTF-16 code units (`idChars`, `idStarts`), and a hash table of them
 *   (`idTable`: node + 1 per slot, 0 empty, linear probing). The nodes are the items (node =
 *   position in the snapshot's items), then the ids edges name that are no item's. An id held by
 *   several items finds the last of them visible in `env` (as a `Map` set item by item would);
 * - for the build's environment `env`: which items are visible (`visible`), and the visible
 *   items of each type in snapshot order (`typeStarts`, `typeItems`: positions, by `types`);
 * - the edges as adjacency lists both ways (CSR: `outStarts[node] .. outStarts[node + 1]` in
 *   `outNodes`/`outLabels`; the same for `in`), each node's edges in snapshot order, labels as
 *   indices into `labels`. An edge's `props` are not kept (no template reads them through a
 *   query); edges whose ends are not texts are left out (no item has them as an id).
 */
export interface SharedStore {
  items: SharedItems;
  /** items + the ids of edge ends that are no item */
  nodes: number;
  idChars: SharedArrayBuffer;
  idStarts: SharedArrayBuffer;
  idTable: SharedArrayBuffer;
  env: string;
  visible: SharedArrayBuffer;
  types: string[];
  typeStarts: SharedArrayBuffer;
  typeItems: SharedArrayBuffer;
  labels: unknown[];
  outStarts: SharedArrayBuffer;
  outNodes: SharedArrayBuffer;
  outLabels: SharedArrayBuffer;
  inStarts: SharedArrayBuffer;
  inNodes: SharedArrayBuffer;
  inLabels: SharedArrayBuffer;
}

function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Math.max(1, length) * 4));
}

/** FNV-1a over UTF-16 code units. */
function hashChars(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Packs a snapshot's items and edges into a {@link SharedStore} for the environment `env`
 * (`visible` says which items a build in it sees: the source's `isVisibleIn`).
 */
export function packStore(
  snapshot: Pick<Snapshot, 'items' | 'edges'>,
  env: string,
  visible: (item: SnapshotItem) => boolean,
): { store: SharedStore; recordBytes: number } {
  const { items } = snapshot;
  const edges = snapshot.edges ?? [];
  const count = items.length;
  const { shared, recordBytes } = packItems(items);
  // nodes: an id → node map while packing (the table below is what the workers use)
  const nodeOf = new Map<string, number>();
  const ids: string[] = [];
  const visibleFlags = new Uint8Array(new SharedArrayBuffer(Math.max(1, count)));
  const typeIndex = new Map<string, number>();
  const types: string[] = [];
  const typeOf = new Int32Array(Math.max(1, count));
  for (let i = 0; i < count; i++) {
    const item = items[i]!;
    const shown = visible(item);
    visibleFlags[i] = shown ? 1 : 0;
    const known = nodeOf.get(item.id);
    if (known === undefined || (shown && known < count)) nodeOf.set(item.id, i);
    ids.push(item.id);
    let type = typeIndex.get(item.type);
    if (type === undefined) {
      type = types.length;
      typeIndex.set(item.type, type);
      types.push(item.type);
    }
    typeOf[i] = shown ? type : -1;
  }
  // visible items by type, in snapshot order
  const typeStarts = sharedInt32(types.length + 1);
  for (let i = 0; i < count; i++) if (typeOf[i]! >= 0) typeStarts[typeOf[i]! + 1]!++;
  for (let t = 0; t < types.length; t++) typeStarts[t + 1]! += typeStarts[t]!;
  const typeItems = sharedInt32(typeStarts[types.length]!);
  const typeFill = typeStarts.slice(0, Math.max(1, types.length));
  for (let i = 0; i < count; i++) {
    const t = typeOf[i]!;
    if (t >= 0) typeItems[typeFill[t]!++] = i;
  }
  // edges: ends as nodes (new nodes for ids of no item), labels interned
  const labelIndex = new Map<unknown, number>();
  const labels: unknown[] = [];
  const edgeFrom = new Int32Array(Math.max(1, edges.length));
  const edgeTo = new Int32Array(Math.max(1, edges.length));
  const edgeLabel = new Int32Array(Math.max(1, edges.length));
  const node = (id: string): number => {
    let at = nodeOf.get(id);
    if (at === undefined) {
      at = ids.length;
      ids.push(id);
      nodeOf.set(id, at);
    }
    return at;
  };
  let kept = 0;
  for (const edge of edges) {
    if (typeof edge.from !== 'string' || typeof edge.to !== 'string') continue;
    edgeFrom[kept] = node(edge.from);
    edgeTo[kept] = node(edge.to);
    let label = labelIndex.get(edge.edge);
    if (label === undefined) {
      label = labels.length;
      labelIndex.set(edge.edge, label);
      labels.push(edge.edge);
    }
    edgeLabel[kept] = label;
    kept++;
  }
  const nodes = ids.length;
  const adjacency = (ends: Int32Array, others: Int32Array) => {
    const starts = sharedInt32(nodes + 1);
    for (let e = 0; e < kept; e++) starts[ends[e]! + 1]!++;
    for (let n = 0; n < nodes; n++) starts[n + 1]! += starts[n]!;
    const fill = starts.slice(0, Math.max(1, nodes));
    const to = sharedInt32(kept);
    const label = sharedInt32(kept);
    for (let e = 0; e < kept; e++) {
      const at = fill[ends[e]!]!++;
      to[at] = others[e]!;
      label[at] = edgeLabel[e]!;
    }
    return { starts, to, label };
  };
  const out = adjacency(edgeFrom, edgeTo);
  const into = adjacency(edgeTo, edgeFrom);
  // ids as UTF-16 code units, and their hash table (each distinct id once: the node `nodeOf` gives)
  let chars = 0;
  for (const id of ids) chars += id.length;
  const idStarts = sharedInt32(nodes + 1);
  const idChars = new Uint16Array(new SharedArrayBuffer(Math.max(2, chars * 2)));
  for (let n = 0, at = 0; n < nodes; n++) {
    const id = ids[n]!;
    for (let c = 0; c < id.length; c++) idChars[at + c] = id.charCodeAt(c);
    at += id.length;
    idStarts[n + 1] = at;
  }
  let size = 16;
  while (size < nodeOf.size * 2) size *= 2;
  const idTable = sharedInt32(size);
  for (const [id, at] of nodeOf) {
    let slot = hashChars(id) & (size - 1);
    while (idTable[slot] !== 0) slot = (slot + 1) & (size - 1);
    idTable[slot] = at + 1;
  }
  return {
    store: {
      items: shared,
      nodes,
      idChars: idChars.buffer as SharedArrayBuffer,
      idStarts: idStarts.buffer as SharedArrayBuffer,
      idTable: idTable.buffer as SharedArrayBuffer,
      env,
      visible: visibleFlags.buffer as SharedArrayBuffer,
      types,
      typeStarts: typeStarts.buffer as SharedArrayBuffer,
      typeItems: typeItems.buffer as SharedArrayBuffer,
      labels,
      outStarts: out.starts.buffer as SharedArrayBuffer,
      outNodes: out.to.buffer as SharedArrayBuffer,
      outLabels: out.label.buffer as SharedArrayBuffer,
      inStarts: into.starts.buffer as SharedArrayBuffer,
      inNodes: into.to.buffer as SharedArrayBuffer,
      inLabels: into.label.buffer as SharedArrayBuffer,
    },
    recordBytes,
  };
}

/**
 * Items a {@link StoreReader} holds strongly per generation: the items read since the last
 * turn of generations (at most this many), and those of the generation before.
 */
export const ITEMS_PER_GENERATION = 1024;

/**
 * A worker's reader of a {@link SharedStore}. `item(position)` parses the item's record when
 * a page reads it and gives the same object again while anything holds it: what the renderer
 * keys by item object (views, dependency hashes, the render memo's keys) stays consistent, and
 * items no page holds are collected.
 *
 * Identity without a `WeakRef` per read: the items read lately are held in two generations of
 * plain maps (the current one and the one before, {@link ITEMS_PER_GENERATION} items each; an
 * item read again moves to the current one), and only an item that outlived both is given a
 * `WeakRef` (then, being that old, it is in V8's old generation anyway). A `WeakRef` made at
 * each read kept every item read alive through young-generation collections (V8 treats its
 * target as strong there) and to the end of the task that made it, so every item was promoted
 * and died in the old generation (docs/benchmarks.md, "A million items, session 13").
 */
export class StoreReader {
  readonly count: number;
  readonly nodes: number;
  readonly env: string;
  readonly labels: readonly unknown[];
  private readonly records: SharedText;
  private readonly texts: SharedText;
  private readonly index: Float64Array;
  private readonly idChars: Uint16Array;
  private readonly idStarts: Int32Array;
  private readonly idTable: Int32Array;
  private readonly visibleFlags: Uint8Array;
  private readonly typeStarts: Int32Array;
  private readonly typeItems: Int32Array;
  private readonly typeIndex: Map<string, number>;
  private readonly outStarts: Int32Array;
  private readonly outNodes: Int32Array;
  private readonly outLabels: Int32Array;
  private readonly inStarts: Int32Array;
  private readonly inNodes: Int32Array;
  private readonly inLabels: Int32Array;
  /** items that outlived both generations, while something else holds them */
  private readonly refs: Array<WeakRef<SnapshotItem> | undefined>;
  /** items read in this generation and the one before, by position */
  private current = new Map<number, SnapshotItem>();
  private previous = new Map<number, SnapshotItem>();

  constructor(store: SharedStore) {
    this.count = store.items.count;
    this.nodes = store.nodes;
    this.env = store.env;
    this.labels = store.labels;
    this.records = new SharedText(store.items.records);
    this.texts = new SharedText(store.items.texts);
    this.index = new Float64Array(store.items.index);
    this.idChars = new Uint16Array(store.idChars);
    this.idStarts = new Int32Array(store.idStarts);
    this.idTable = new Int32Array(store.idTable);
    this.visibleFlags = new Uint8Array(store.visible);
    this.typeStarts = new Int32Array(store.typeStarts);
    this.typeItems = new Int32Array(store.typeItems);
    this.typeIndex = new Map(store.types.map((type, i) => [type, i]));
    this.outStarts = new Int32Array(store.outStarts);
    this.outNodes = new Int32Array(store.outNodes);
    this.outLabels = new Int32Array(store.outLabels);
    this.inStarts = new Int32Array(store.inStarts);
    this.inNodes = new Int32Array(store.inNodes);
    this.inLabels = new Int32Array(store.inLabels);
    this.refs = new Array<WeakRef<SnapshotItem> | undefined>(this.count).fill(undefined);
  }

  /** The node of an id (an item's position when an item has it), -1 when none. */
  node(id: string): number {
    const table = this.idTable;
    const mask = table.length - 1;
    let slot = hashChars(id) & mask;
    for (;;) {
      const held = table[slot]!;
      if (held === 0) return -1;
      if (this.idIs(held - 1, id)) return held - 1;
      slot = (slot + 1) & mask;
    }
  }

  private idIs(node: number, id: string): boolean {
    const start = this.idStarts[node]!;
    if (this.idStarts[node + 1]! - start !== id.length) return false;
    const chars = this.idChars;
    for (let c = 0; c < id.length; c++) if (chars[start + c] !== id.charCodeAt(c)) return false;
    return true;
  }

  /** A node's id. */
  idAt(node: number): string {
    const start = this.idStarts[node]!;
    const end = this.idStarts[node + 1]!;
    let id = '';
    for (let at = start; at < end; at += 4096)
      id += String.fromCharCode(...this.idChars.subarray(at, Math.min(end, at + 4096)));
    return id;
  }

  /** Whether the item at `position` is visible in the store's environment. */
  visible(position: number): boolean {
    return position >= 0 && position < this.count && this.visibleFlags[position] === 1;
  }

  /** The visible items of a type, as positions in snapshot order (a view of shared memory). */
  positionsOfType(type: string): Int32Array {
    const t = this.typeIndex.get(type);
    if (t === undefined) return this.typeItems.subarray(0, 0);
    return this.typeItems.subarray(this.typeStarts[t]!, this.typeStarts[t + 1]!);
  }

  /** The types that have visible items. */
  types(): string[] {
    return [...this.typeIndex.keys()].filter((type) => this.positionsOfType(type).length > 0);
  }

  /** A node's edges one way: the other ends (nodes) and labels (indices into `labels`), in snapshot order. */
  edges(node: number, direction: 'out' | 'in'): { nodes: Int32Array; labels: Int32Array } {
    const out = direction === 'out';
    const starts = out ? this.outStarts : this.inStarts;
    if (node < 0 || node >= this.nodes)
      return { nodes: this.outNodes.subarray(0, 0), labels: this.outLabels.subarray(0, 0) };
    const start = starts[node]!;
    const end = starts[node + 1]!;
    return {
      nodes: (out ? this.outNodes : this.inNodes).subarray(start, end),
      labels: (out ? this.outLabels : this.inLabels).subarray(start, end),
    };
  }

  /** The item at `position`: the object read before while anything holds it, else parsed anew. */
  item(position: number): SnapshotItem {
    let item = this.current.get(position);
    if (item !== undefined) return item;
    item = this.previous.get(position) ?? this.refs[position]?.deref();
    if (item === undefined) item = this.read(position);
    if (this.current.size >= ITEMS_PER_GENERATION) this.turn();
    this.current.set(position, item);
    return item;
  }

  /**
   * The item at `position` for a look that keeps nothing (a scan of a whole type): the object
   * read before when there is one, else a parsed one this reader does not remember (a later
   * {@link item} parses it again).
   */
  peek(position: number): SnapshotItem {
    return (
      this.current.get(position) ??
      this.previous.get(position) ??
      this.refs[position]?.deref() ??
      this.read(position)
    );
  }

  /** How many items the reader holds strongly (at most twice {@link ITEMS_PER_GENERATION}). */
  get heldItems(): number {
    return this.current.size + this.previous.size;
  }

  /** Starts a generation: the items of the one before that were not read again get a `WeakRef`. */
  private turn(): void {
    const current = this.current;
    for (const [position, item] of this.previous) {
      if (current.has(position)) continue;
      if (this.refs[position]?.deref() !== item) this.refs[position] = new WeakRef(item);
    }
    this.previous = current;
    this.current = new Map();
  }

  /** The item at `position` parsed from its record: a new object at each call (its long values read on demand). */
  read(position: number): SnapshotItem {
    const index = this.index;
    const [item, long] = JSON.parse(
      this.records.text([index[position * 3]!, index[position * 3 + 1]!, index[position * 3 + 2]!]),
    ) as ItemRecord;
    if (long !== 0) {
      const fields = item.fields as Record<string, unknown>;
      for (const [key, segment, offset, length] of long)
        defineSharedField(fields, key, this.texts, [segment, offset, length]);
    }
    return item;
  }
}
