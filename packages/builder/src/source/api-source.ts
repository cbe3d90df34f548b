import { TrellisError } from '@trelliscms/core/build';
import { createClient } from '@trelliscms/sdk';
import { assertSnapshot } from '../snapshot/read-snapshot';
import type { Snapshot, SnapshotItem, SnapshotSite, SnapshotTemplate, SnapshotType } from '../snapshot/types';
import type { ContentSource, ListQuery, ListResult, SimilarQuery, TraverseQuery } from './content-source';
import { SnapshotSource } from './snapshot-source';

export interface ApiSourceOptions {
  /** the server's base URL, e.g. `http://127.0.0.1:4000` */
  url: string;
  /** an API key sent as `Authorization: Bearer` */
  key: string;
  /** `site:<slug>`, sent as `X-Site-Id` */
  site: string;
  /** environment whose content the queries see; default `dev` */
  env?: string;
  fetch?: typeof fetch;
  /** default 120 000 */
  timeoutMs?: number;
}

/**
 * A {@link ContentSource} over the live API: it reads the site's snapshot once through the
 * SDK (`GET /api/export`, checked against the snapshot schema) and answers every query from it.
 * A failed call throws `invalid_snapshot` with the server's message (or `engine_unavailable`
 * when the server cannot be reached).
 */
export class ApiSource implements ContentSource {
  private readonly options: ApiSourceOptions;
  private loaded: Promise<SnapshotSource> | null = null;

  constructor(options: ApiSourceOptions) {
    this.options = options;
  }

  private load(): Promise<SnapshotSource> {
    this.loaded ??= (async () => {
      const { url, key, site, timeoutMs = 120_000 } = this.options;
      const client = createClient({ baseUrl: url, apiKey: key, timeoutMs, fetch: this.options.fetch });
      let body: unknown;
      try {
        body = await client.site(site).export.snapshot();
      } catch (error) {
        const name = (error as { name?: string }).name;
        const message = (error as Error).message ?? String(error);
        if (name === 'ConnectionError')
          throw TrellisError.of('engine_unavailable', { detail: `${url}: ${message}` });
        const status = (error as { status?: number }).status;
        const detail = status
          ? `GET /api/export answered ${status}: ${message}`
          : `GET /api/export: ${message}`;
        throw TrellisError.of('invalid_snapshot', { detail });
      }
      return new SnapshotSource({ snapshot: assertSnapshot(body), env: this.options.env });
    })();
    return this.loaded;
  }

  async site(): Promise<SnapshotSite> {
    return (await this.load()).site();
  }
  async types(): Promise<SnapshotType[]> {
    return (await this.load()).types();
  }
  async templates(): Promise<SnapshotTemplate[]> {
    return (await this.load()).templates();
  }
  async item(id: string): Promise<SnapshotItem | null> {
    return (await this.load()).item(id);
  }
  async list(query: ListQuery): Promise<ListResult> {
    return (await this.load()).list(query);
  }
  async traverse(query: TraverseQuery): Promise<SnapshotItem[]> {
    return (await this.load()).traverse(query);
  }
  async similar(query: SimilarQuery): Promise<SnapshotItem[]> {
    return (await this.load()).similar(query);
  }
  async snapshot(): Promise<Snapshot> {
    return (await this.load()).snapshot();
  }
}
