import { TrellisError } from '@trelliscms/core';
import { assertSnapshot } from '../snapshot/read-snapshot';
import type { Snapshot, SnapshotItem, SnapshotSite, SnapshotTemplate, SnapshotType } from '../snapshot/types';
import type { ContentSource, ListQuery, ListResult, SimilarQuery, TraverseQuery } from './content-source';
import { SnapshotSource } from './snapshot-source';

export interface ApiSourceOptions {
  /** the server's base URL, e.g. `http://127.0.0.1:4000` */
  url: string;
  /** an API key (or ID token) sent as `Authorization: Bearer` */
  key: string;
  /** `site:<slug>`, sent as `X-Site-Id` */
  site: string;
  /** environment whose content the queries see; default `dev` */
  env?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/**
 * A {@link ContentSource} over the live API: it reads the site's snapshot once from
 * `GET /api/export` and answers every query from it.
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
      const doFetch = this.options.fetch ?? fetch;
      const endpoint = new URL('/api/export', url);
      let response: Response;
      try {
        response = await doFetch(endpoint, {
          headers: { authorization: `Bearer ${key}`, 'x-site-id': site, accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw TrellisError.of('engine_unavailable', { detail: `${endpoint}: ${(error as Error).message}` });
      }
      const text = await response.text();
      if (!response.ok) {
        let message = text.slice(0, 300);
        try {
          message = (JSON.parse(text) as { error?: string }).error ?? message;
        } catch {}
        throw TrellisError.of('invalid_snapshot', {
          detail: `GET ${endpoint} answered ${response.status}: ${message}`,
        });
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (error) {
        throw TrellisError.of('invalid_snapshot', { detail: `GET ${endpoint}: ${(error as Error).message}` });
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
