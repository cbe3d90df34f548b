import { type RetryOptions, Transport } from './http/transport';
import { type AccessApi, createAccessApi } from './namespaces/access';
import { type AiApi, createAiApi } from './namespaces/ai';
import { type ApiKeysApi, createApiKeysApi } from './namespaces/api-keys';
import { type AuditApi, createAuditApi } from './namespaces/audit';
import { type BugsApi, createBugsApi } from './namespaces/bugs';
import { type BuildApi, createBuildApi } from './namespaces/build';
import { type ContentApi, createContentApi } from './namespaces/content';
import { createExportApi, type ExportApi } from './namespaces/export';
import { createHealthApi, type HealthApi } from './namespaces/health';
import { createImportApi, type ImportApi } from './namespaces/import';
import { createLeadsApi, type LeadsApi } from './namespaces/leads';
import { createLocalesApi, type LocalesApi } from './namespaces/locales';
import { createMaintenanceApi, type MaintenanceApi } from './namespaces/maintenance';
import { createMediaApi, type MediaApi } from './namespaces/media';
import { createMembersApi, type MembersApi } from './namespaces/members';
import { createNotificationsApi, type NotificationsApi } from './namespaces/notifications';
import { createQueriesApi, type QueriesApi } from './namespaces/queries';
import { createReleasesApi, type ReleasesApi } from './namespaces/releases';
import { createSdkFilesApi, type SdkFilesApi } from './namespaces/sdk-files';
import {
  type BlockTypesApi,
  createBlockTypesApi,
  createPageKitsApi,
  createRoutesApi,
  createScriptsApi,
  createTransformsApi,
  createViewsApi,
  createWidgetsApi,
  type PageKitsApi,
  type RoutesApi,
  type ScriptsApi,
  type TransformsApi,
  type ViewsApi,
  type WidgetsApi,
} from './namespaces/site-resources';
import { createSitesApi, type SitesApi } from './namespaces/sites';
import { createTemplatesApi, type TemplatesApi } from './namespaces/templates';
import type { ContentTypeMap, TypedContentApi } from './namespaces/typed-content';
import { createTypesApi, type TypesApi } from './namespaces/types';
import { createWebhooksApi, type WebhooksApi } from './namespaces/webhooks';
import { createWorkflowsApi, type WorkflowsApi } from './namespaces/workflows';

/** Options of {@link createClient}; the README documents each with its default. */
export interface ClientOptions {
  /** The server's address, e.g. `http://127.0.0.1:4000` (without `/api`). */
  baseUrl: string;
  /** An API key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Returns an ID token for each request (called before every attempt, so it can refresh). */
  token?: () => Promise<string> | string;
  /** Each attempt's timeout in ms. Default 30000. Synchronous builds default to 600000. */
  timeoutMs?: number;
  /** Retries of safe failures: a limit, `false` for none, or options. Default `{limit: 2}`. */
  retry?: RetryOptions | number | false;
  /** The `fetch` to use. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Called when the server answers 429 (or 503) with `Retry-After` and the request will be
   * retried after that wait (within the retry limit): so a person waiting can be told why and
   * for how long.
   */
  onRetryWait?: (wait: RetryWait) => void;
}

/** See {@link ClientOptions.onRetryWait}. */
export interface RetryWait {
  status: number;
  method: string;
  url: string;
  /** How long the client waits before the next attempt (Retry-After, at most `maxRetryAfterMs`). */
  waitMs: number;
}

/** The namespaces that work on one site: every request sends `X-Site-Id`. */
export interface SiteClient {
  /** The site id (`site:<slug>`) sent as `X-Site-Id`. */
  readonly id: string;
  readonly access: AccessApi;
  readonly members: MembersApi;
  readonly apiKeys: ApiKeysApi;
  readonly types: TypesApi;
  readonly content: ContentApi;
  readonly import: ImportApi;
  readonly templates: TemplatesApi;
  readonly build: BuildApi;
  readonly releases: ReleasesApi;
  readonly media: MediaApi;
  /** Assistant suggestions on the site's content (docs/ai.md): SEO descriptions, alt text, tags, summaries, translations. */
  readonly ai: AiApi;
  readonly audit: AuditApi;
  readonly maintenance: MaintenanceApi;
  readonly export: ExportApi;
  readonly routes: RoutesApi;
  readonly views: ViewsApi;
  /** Saved queries (docs/queries.md): list, get, create, update, delete and run. */
  readonly queries: QueriesApi;
  readonly transforms: TransformsApi;
  readonly scripts: ScriptsApi;
  readonly blockTypes: BlockTypesApi;
  readonly widgets: WidgetsApi;
  readonly pageKits: PageKitsApi;
  readonly locales: LocalesApi;
  /** Workflow definitions, item states and transitions (docs/workflows.md). */
  readonly workflows: WorkflowsApi;
  /** Webhook subscriptions and their deliveries (admins). */
  readonly webhooks: WebhooksApi;
  readonly leads: LeadsApi;
  readonly sdk: SdkFilesApi;
}

/** A {@link SiteClient} whose `content` is typed by the site's content types (`cms sdk generate`). */
export type TypedSiteClient<M extends ContentTypeMap> = Omit<SiteClient, 'content'> & {
  readonly content: TypedContentApi<M>;
};

/**
 * Types a site client's `content` by a site's {@link ContentTypeMap} (the `ContentTypes` of the
 * generated `types.d.ts`): the same object, seen through its types, so
 * `withContentTypes<ContentTypes>(client.site(id)).content.list('post')` returns typed items.
 */
export function withContentTypes<M extends ContentTypeMap>(site: SiteClient): TypedSiteClient<M> {
  return site as unknown as TypedSiteClient<M>;
}

/** The platform-level client. `site(id)` gives the site-scoped namespaces. */
export interface TrellisClient {
  readonly health: HealthApi;
  readonly sites: SitesApi;
  /** Only `mySites` and `acceptInvitation` work without a site; use `client.site(id).access` for the rest. */
  readonly access: Pick<AccessApi, 'mySites' | 'acceptInvitation'>;
  /** The caller's notifications, across their sites. */
  readonly notifications: NotificationsApi;
  /** Problem reports: `report` for anyone signed in; `list` and `delete` for platform admins. */
  readonly bugs: BugsApi;
  /** A client for one site (sends `X-Site-Id: id`). */
  site(id: string): SiteClient;
}

/**
 * Creates a client for a Trellis server:
 *
 * ```ts
 * const client = createClient({ baseUrl: 'http://127.0.0.1:4000', apiKey: process.env.CMS_API_KEY });
 * const posts = await client.site('site:blog').content.list('post');
 * ```
 */
export function createClient(options: ClientOptions): TrellisClient {
  if (typeof options?.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
    throw new TypeError('createClient: baseUrl must be an http:// or https:// URL');
  }
  if (options.apiKey !== undefined && options.token !== undefined) {
    throw new TypeError('createClient: give apiKey or token, not both');
  }
  const transport = Transport.create({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    token: options.token,
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: options.retry ?? 2,
    fetch: options.fetch,
    headers: options.headers,
    onRetryWait: options.onRetryWait,
  });
  const sites = createSitesApi(transport);
  const access = createAccessApi(transport);
  return {
    health: createHealthApi(transport),
    sites,
    access: { mySites: access.mySites, acceptInvitation: access.acceptInvitation },
    notifications: createNotificationsApi(transport),
    bugs: createBugsApi(transport),
    site(id: string): SiteClient {
      if (typeof id !== 'string' || id.length === 0) throw new TypeError('site(id): id must be a site id');
      const scoped = transport.withSite(id);
      let graphName: Promise<string> | undefined;
      const graphOfSite = () => {
        graphName ??= sites.get(id).then((site) => site.graphName);
        return graphName;
      };
      return {
        id,
        access: createAccessApi(scoped),
        members: createMembersApi(scoped),
        apiKeys: createApiKeysApi(scoped),
        types: createTypesApi(scoped),
        content: createContentApi(scoped),
        import: createImportApi(scoped),
        templates: createTemplatesApi(scoped),
        build: createBuildApi(scoped),
        releases: createReleasesApi(scoped),
        media: createMediaApi(scoped),
        ai: createAiApi(scoped),
        audit: createAuditApi(scoped, graphOfSite),
        maintenance: createMaintenanceApi(scoped),
        export: createExportApi(scoped),
        routes: createRoutesApi(scoped),
        views: createViewsApi(scoped),
        queries: createQueriesApi(scoped),
        transforms: createTransformsApi(scoped),
        scripts: createScriptsApi(scoped),
        blockTypes: createBlockTypesApi(scoped),
        widgets: createWidgetsApi(scoped),
        pageKits: createPageKitsApi(scoped),
        locales: createLocalesApi(scoped),
        workflows: createWorkflowsApi(scoped),
        webhooks: createWebhooksApi(scoped),
        leads: createLeadsApi(scoped),
        sdk: createSdkFilesApi(scoped),
      };
    },
  };
}
