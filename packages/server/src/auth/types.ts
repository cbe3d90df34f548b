import type { PlatformRole, Role } from '@trelliscms/core';
import type { Graph } from '../engines/port';

/** Roles of docs/api-spec.md §5.5, highest first (core's `Role`). */
export type { Role };

/**
 * What a route may require. One permission table in `auth/permissions.ts` maps each role to
 * the permissions it holds; one hook enforces `config.permission` on every route.
 */
export type Permission =
  | 'site:read'
  | 'site:update'
  | 'site:delete'
  | 'content:read'
  | 'content:write'
  | 'content:publish'
  | 'types:manage'
  | 'templates:manage'
  | 'build:run'
  | 'release:manage'
  | 'release:deploy'
  | 'members:manage'
  | 'keys:manage'
  | 'maintenance:run'
  | 'audit:read';

/** Who is calling, resolved from the bearer credential (docs/api-spec.md §5.4 step 1 and 2). */
export interface Principal {
  kind: 'api_key' | 'id_token';
  /** The platform user id (`user:<id>`); for API keys, the key's own user. */
  userId: string;
  /** The API key id (`key:<id>`) when the credential is an API key. */
  keyId?: string;
  /** `owner` for the platform owner, `admin` for platform admins, else null (site roles apply). */
  platformRole: PlatformRole | null;
  /** Sites this credential is limited to; null = no restriction. */
  allowedSites: string[] | null;
  /**
   * An API key's own role: on a site it acts with the lower of this and its creator's role
   * there. Absent for ID tokens and the platform-owner key.
   */
  keyRole?: Role;
  /**
   * An engine-direct graph-level key (`tg_…`): the one site whose graph it is bound to. Its
   * site-scoped requests need no `X-Site-Id` (this site is implied); other sites and
   * platform-level routes are refused.
   */
  graphSiteId?: string;
}

/** See `siteScope` of a route's config. */
export type SiteScope = 'site' | 'none';

/** The site a site-scoped request works on (docs/api-spec.md §5.4 step 3), from `X-Site-Id`. */
export interface SiteContext {
  /** `site:<slug>` */
  id: string;
  graphName: string;
  /** The site's own graph. */
  graph: Graph;
  /** The caller's effective role on this site. */
  role: Role;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Null only on public routes. */
    principal: Principal | null;
    /** Set on site-scoped routes (`siteScope: 'site'` or `siteParam`); read it with `siteOf(request)`. */
    site: SiteContext | null;
  }
  interface FastifyContextConfig {
    /**
     * Whether the route works on the site named by `X-Site-Id` (docs/api-spec.md §5.3):
     * `'site'` requires the header and sets `request.site`; `'none'` is a platform route (or
     * one naming its site by `siteParam`). Every `/api` route must declare it: registering
     * one without it fails.
     */
    siteScope?: SiteScope;
    /** Public routes need no credential (health, health/detail, metrics, openapi, media files). */
    public?: boolean;
    /**
     * `optional`: a request without an `Authorization` header reaches the handler with
     * `principal` null; one with a credential is checked as on any route (401 when bad).
     */
    credential?: 'optional';
    /** The permission the caller's role must hold; checked by the auth hook. */
    permission?: Permission;
    /**
     * The route works on the site named by this path parameter (e.g. `id` of
     * `/api/sites/:id`) instead of `X-Site-Id`: the hook resolves it into `request.site`
     * (404 unknown or deleted, 403 no access) and checks `permission` against its role.
     */
    siteParam?: string;
    /**
     * Called by the auth hook in the same turn as the access-epoch read it waits for, with the
     * site the access cache holds for the request's credential (when it holds one): a read it
     * starts rides in the epoch read's round trip on an engine that coalesces point reads
     * (auth/access-epoch.ts, `check(alongside)`). A speculation: the route may use what it read
     * only after the access check passed, and only for the site the check settled on.
     */
    prefetch?: (request: FastifyRequest, site: SiteContext) => void;
  }
}
