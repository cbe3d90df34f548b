import type {
  Snapshot,
  SnapshotEdge,
  SnapshotItem,
  SnapshotSite,
  SnapshotTemplate,
  SnapshotType,
} from '../snapshot/types';
import type { ContentSource, ListQuery, ListResult, SimilarQuery, TraverseQuery } from './content-source';
import { compareValues, matches, readField } from './where';

/** Whether an item is part of an environment's build: `dev` builds everything, others only what is published there. */
export function isVisibleIn(item: SnapshotItem, env: string): boolean {
  return env === 'dev' || (item.publishedEnvs ?? []).includes(env);
}

/**
 * A {@link ContentSource} over a snapshot held in memory, with indexes by id, type and edge.
 * It answers synchronously. With `env`, items not visible in that environment do not exist
 * for queries (`item`, `list`, `traverse`, `similar`).
 */
export class SnapshotSource implements ContentSource {
  readonly data: Snapshot;
  readonly env: string;
  private readonly byId = new Map<string, SnapshotItem>();
  private readonly byType = new Map<string, SnapshotItem[]>();
  private readonly out = new Map<string, SnapshotEdge[]>();
  private readonly in = new Map<string, SnapshotEdge[]>();
  // the edge index is built on first use: planning an incremental build rarely traverses
  private edgesIndexed = false;
  private readonly sortedCache = new Map<string, SnapshotItem[]>();

  constructor(params: { snapshot: Snapshot; env?: string }) {
    this.data = params.snapshot;
    this.env = params.env ?? 'dev';
    for (const item of this.data.items) {
      if (!isVisibleIn(item, this.env)) continue;
      this.byId.set(item.id, item);
      push(this.byType, item.type, item);
    }
  }

  private indexEdges(): void {
    this.edgesIndexed = true;
    for (const edge of this.data.edges ?? []) {
      if (!this.byId.has(edge.from) || !this.byId.has(edge.to)) continue;
      push(this.out, edge.from, edge);
      push(this.in, edge.to, edge);
    }
  }

  site(): SnapshotSite {
    return this.data.site;
  }

  types(): SnapshotType[] {
    return this.data.types;
  }

  templates(): SnapshotTemplate[] {
    return this.data.templates;
  }

  item(id: string): SnapshotItem | null {
    return this.byId.get(id) ?? null;
  }

  /** Every visible item of a type, in snapshot order. */
  itemsOfType(type: string): readonly SnapshotItem[] {
    return this.byType.get(type) ?? [];
  }

  list(query: ListQuery): ListResult {
    const key = JSON.stringify([query.type, query.where ?? [], query.sort ?? []]);
    let all = this.sortedCache.get(key);
    if (!all) {
      const conditions = query.where ?? [];
      all = this.itemsOfType(query.type).filter((item) => conditions.every((c) => matches(item, c)));
      const sort = query.sort ?? [];
      all = [...all].sort((a, b) => {
        for (const raw of sort) {
          const descending = raw.startsWith('-');
          const field = descending ? raw.slice(1) : raw;
          const order = compareValues(readField(a, field), readField(b, field));
          if (order !== 0) return descending ? -order : order;
        }
        return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      });
      this.sortedCache.set(key, all);
    }
    const offset = Math.max(0, query.offset ?? 0);
    const end = query.limit === undefined ? undefined : offset + Math.max(0, query.limit);
    return { items: all.slice(offset, end), total: all.length };
  }

  /** The ids of edges leaving (`out`) or entering (`in`) an item. */
  edgesOf(id: string, direction: 'out' | 'in'): readonly SnapshotEdge[] {
    if (!this.edgesIndexed) this.indexEdges();
    return (direction === 'out' ? this.out : this.in).get(id) ?? [];
  }

  traverse(query: TraverseQuery): SnapshotItem[] {
    const depth = Math.min(Math.max(1, query.depth), 3);
    const seen = new Set([query.from]);
    const result: SnapshotItem[] = [];
    let frontier = [query.from];
    for (let level = 0; level < depth && frontier.length > 0; level++) {
      const next: string[] = [];
      for (const id of frontier) {
        const steps: string[] = [];
        if (query.direction !== 'in') {
          for (const edge of this.edgesOf(id, 'out'))
            if (query.edge === '*' || edge.edge === query.edge) steps.push(edge.to);
        }
        if (query.direction !== 'out') {
          for (const edge of this.edgesOf(id, 'in'))
            if (query.edge === '*' || edge.edge === query.edge) steps.push(edge.from);
        }
        for (const target of steps) {
          if (seen.has(target)) continue;
          seen.add(target);
          const item = this.byId.get(target);
          if (!item) continue;
          result.push(item);
          next.push(target);
          if (query.limit !== undefined && result.length >= query.limit) return result;
        }
      }
      frontier = next;
    }
    return result;
  }

  similar(query: SimilarQuery): SnapshotItem[] {
    const start = this.byId.get(query.from);
    const vector = start?.embedding;
    if (!start || !vector || vector.length === 0) return [];
    const scored: Array<{ item: SnapshotItem; score: number }> = [];
    for (const item of this.itemsOfType(start.type)) {
      if (item.id === start.id || !item.embedding || item.embedding.length !== vector.length) continue;
      scored.push({ item, score: cosine(vector, item.embedding) });
    }
    scored.sort((a, b) => b.score - a.score || (a.item.id < b.item.id ? -1 : 1));
    return scored.slice(0, Math.max(0, query.limit)).map((entry) => entry.item);
  }

  snapshot(): Snapshot {
    return this.data;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
