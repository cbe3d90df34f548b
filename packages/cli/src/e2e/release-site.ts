import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageDir, SDK_DIST } from './harness';

/** The built SDK's module. */
export type Sdk = typeof import('@trelliscms/sdk');
/** A client of the built SDK. */
export type Client = ReturnType<Sdk['createClient']>;
/** A client scoped to one site. */
export type Site = ReturnType<Client['site']>;

/** Loads the built SDK (packages/sdk/dist), as an integrator would. */
export async function loadSdk(): Promise<Sdk> {
  return (await import(SDK_DIST)) as Sdk;
}

/**
 * What the servers of the release tests run with: the scheduler on, info logs (each switch is
 * logged with its lateness), a rate limit that reading pages every 50 ms stays under, and no
 * shedding on event-loop delay (parallel test files on a small machine stall the event loop;
 * a 503 would say nothing about releases).
 */
export const RELEASE_SERVER_ENV = {
  CMS_SCHEDULER: 'true',
  LOG_LEVEL: 'info',
  RATE_LIMIT_MAX: '1000000',
  LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
} as const;

/** A client of the server at `url` that does not retry (a retry would blur what one request did). */
export async function clientOf(url: string, apiKey: string): Promise<Client> {
  return (await loadSdk()).createClient({ baseUrl: url, apiKey, retry: false });
}

/** The `post` type of these tests: a page per post at `/posts/{slug}/`. */
export const POST_TYPE = {
  name: 'post',
  label: 'Post',
  nodeLabel: 'Post',
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: true },
    { name: 'title', type: 'string', required: true },
  ],
  routePattern: '/posts/{slug}/',
} as const;

/**
 * Creates site `slug` (no starter kit) with the `post` type and a template bound to it that
 * prints the post's title in an `<h1>`; resolves with a client scoped to the site.
 */
export async function createPostSite(client: Client, slug: string): Promise<Site> {
  const created = await client.sites.create({ name: `Releases ${slug}`, slug, starterKit: 'none' });
  const site = client.site(created.id);
  await site.types.apply(POST_TYPE as unknown as Parameters<Site['types']['apply']>[0]);
  await site.templates.create({ name: 'post', boundType: 'post', content: '<h1>{{ item.title }}</h1>' });
  return site;
}

/** Creates an approved release `name` that pins each of `itemIds` (posts) at its current version; resolves with its id. */
export async function approvedRelease(site: Site, name: string, itemIds: string[]): Promise<string> {
  const release = await site.releases.create({ name });
  for (const id of itemIds) await site.releases.includeItem(release.id, 'post', id);
  await site.releases.submitAndApprove(release.id);
  return release.id;
}

/** The URL of post `slug`'s page in environment `env` of site `siteSlug`, as the server serves it. */
export function pageUrl(serverUrl: string, siteSlug: string, env: string, slug: string): string {
  return `${serverUrl}/sites/${siteSlug}/${env}/posts/${slug}/`;
}

/** What one GET of a served page gave: the `<h1>` text (null when none or not 200), and when the answer came. */
export interface PageRead {
  title: string | null;
  status: number;
  sentAt: number;
  receivedAt: number;
  /** The start of the answer, for failure messages. */
  excerpt: string;
}

/**
 * GETs a served page over HTTP (a real fetch to the server's port) and reads its `<h1>`.
 * Throws on an answer other than 200 or 404 (e.g. 429: a read that says nothing of the page).
 */
export async function readPage(url: string): Promise<PageRead> {
  const sentAt = Date.now();
  const response = await fetch(url, { cache: 'no-store' });
  const html = await response.text();
  const receivedAt = Date.now();
  if (response.status !== 200 && response.status !== 404) {
    throw new Error(`GET ${url} answered ${response.status}: ${html.slice(0, 200)}`);
  }
  const match = response.status === 200 ? /<h1>([^<]*)<\/h1>/.exec(html) : null;
  return {
    title: match?.[1] ?? null,
    status: response.status,
    sentAt,
    receivedAt,
    excerpt: html.slice(0, 200),
  };
}

/** The `<h1>` of a served page, or null. */
export async function pageTitle(url: string): Promise<string | null> {
  return (await readPage(url)).title;
}

/**
 * Calls `probe` every `intervalMs` until it gives a value (not undefined, null or false) and
 * resolves with it; rejects naming `what` after `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  { timeoutMs = 60_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last})` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** One record of a graph's audit chain. */
export interface AuditEntry {
  seq: number;
  ts: string;
  actor: string;
  action: string;
  target: string;
  data: Record<string, unknown> | null;
}

interface ReadonlyDatabase {
  prepare(sql: string): { all(...params: unknown[]): Record<string, unknown>[] };
  close(): void;
}

/**
 * The audit records with `action` of site graph `graphName` under the server's data dir
 * (`<dataDir>/data/graphs/<graphName>.db`), read from the database file with a read-only
 * connection: the HTTP API verifies the audit chain (GET /api/audit/verify) but does not list it.
 */
export function auditEntries(dataDir: string, graphName: string, action: string): AuditEntry[] {
  const file = join(dataDir, 'data', 'graphs', `${graphName}.db`);
  if (!existsSync(file)) throw new Error(`No graph database at ${file}`);
  const require = createRequire(join(packageDir('@trelliscms/server'), 'package.json'));
  const Database = require('libsql') as new (path: string, options: object) => ReadonlyDatabase;
  const db = new Database(file, { readonly: true, timeout: 5000 });
  try {
    return db
      .prepare('SELECT seq, ts, actor, action, target, data FROM audit WHERE action = ? ORDER BY seq')
      .all(action)
      .map((row) => ({
        seq: Number(row.seq),
        ts: String(row.ts),
        actor: String(row.actor),
        action: String(row.action),
        target: String(row.target),
        data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : null,
      }));
  } finally {
    db.close();
  }
}

/** The JSON log lines of a server's output with message `msg` (the server logs with pino). */
export function logLines(output: string, msg: string): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed.msg === msg) lines.push(parsed);
    } catch {}
  }
  return lines;
}

/** A server's warnings and errors, and its last lines: what to print when a test failed. */
export function logTrouble(output: string, last = 20): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const trouble = lines.filter((line) => /"level":"(warn|error|fatal)"/.test(line) || !line.startsWith('{'));
  return [...trouble, '…', ...lines.slice(-last)].join('\n');
}
