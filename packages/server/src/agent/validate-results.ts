/**
 * The results of validate builds started through the agent, kept in this server's memory so
 * `get_build` can read one again: validate builds are never recorded in the graph (spec §6), and
 * a stateless MCP connection keeps nothing between calls. Per site; at most `max` results, each
 * for `ttlMs`.
 */
export class ValidateResults {
  private readonly entries = new Map<string, { at: number; result: Record<string, unknown> }>();

  constructor(private readonly options: { ttlMs: number; max: number; now: () => number }) {}

  remember(siteId: string, result: Record<string, unknown>): void {
    if (typeof result.buildId !== 'string') return;
    this.prune();
    const key = `${siteId}\u0000${result.buildId}`;
    this.entries.delete(key);
    this.entries.set(key, { at: this.options.now(), result });
    while (this.entries.size > this.options.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /** The result of `buildId` validated on `siteId`, or null (unknown, another site's, or expired). */
  get(siteId: string, buildId: string): Record<string, unknown> | null {
    this.prune();
    return this.entries.get(`${siteId}\u0000${buildId}`)?.result ?? null;
  }

  private prune(): void {
    const oldestKept = this.options.now() - this.options.ttlMs;
    for (const [key, entry] of this.entries) {
      if (entry.at >= oldestKept) break;
      this.entries.delete(key);
    }
  }
}
