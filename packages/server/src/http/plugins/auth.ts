import { SiteId, TrellisError } from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isGraphKey } from '../../auth/api-key-secret';
import { authenticate } from '../../auth/authenticate';
import { createIdTokenVerifier, type IdTokenVerifier } from '../../auth/id-token';
import { roleHasPermission } from '../../auth/permissions';
import { requestCredential } from '../../auth/request-credential';
import { siteRoleFor } from '../../auth/site-role';
import type { Permission, Role, SiteScope } from '../../auth/types';
import type { Config } from '../../config';
import { bootstrapOwner, type OwnerBootstrap } from '../../platform/bootstrap-owner';
import { type OwnerKeyStatus, ownerKeyStatus, ownerKeyWarning } from '../../platform/owner-key';
import type { GuardedFetch } from '../../shared/outbound/guarded-fetch';

/** A route as registered, for the authorization matrix and docs. */
export interface RouteEntry {
  method: string;
  url: string;
  config: {
    public?: boolean;
    credential?: 'optional';
    permission?: Permission;
    siteParam?: string;
    siteScope?: SiteScope;
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered after the auth plugin (all API routes), with its auth config. */
    routeTable: RouteEntry[];
    /** Set on the first start only: the platform owner and their key (main.ts prints a generated one once). */
    ownerBootstrap: OwnerBootstrap | null;
    /**
     * On a later start with `CMS_OWNER_KEY` set: whether it is still the owner's key (null when
     * unset or on the first start). Anything but `active` is logged as a warning at start.
     */
    ownerKeyStatus: OwnerKeyStatus | null;
  }
}

/** The site a request names, and how an unknown one is answered (403 for a header, 404 for a path). */
interface NamedSite {
  id: string;
  unknownIs: 'forbidden' | 'not_found';
}

/**
 * The permission a site-scoped route needs when it declares none: reads need `site:read`,
 * anything else `site:update` (admin), so a forgotten declaration fails closed.
 */
export function defaultPermission(method: string): Permission {
  return method === 'GET' || method === 'HEAD' ? 'site:read' : 'site:update';
}

/**
 * Builds the ID-token verifier the configuration asks for, or null when OIDC is not configured;
 * the provider's keys are fetched with `fetch` (the server's guarded fetcher).
 */
export function idTokenVerifierFrom(config: Config, fetch: GuardedFetch): IdTokenVerifier | null {
  if (!config.OIDC_ISSUER || !config.OIDC_AUDIENCE || !config.OIDC_JWKS_URL) return null;
  return createIdTokenVerifier({
    issuer: config.OIDC_ISSUER,
    audience: config.OIDC_AUDIENCE,
    jwksUrl: config.OIDC_JWKS_URL,
    jwksCooldownMs: config.OIDC_JWKS_COOLDOWN_MS,
    fetch,
  });
}

/**
 * Authentication and authorization for every route, in the order of docs/api-spec.md §5.4, as one
 * global `onRequest` hook (it covers routes registered later by any plugin):
 * 1. token check: `Authorization: Bearer` API key or ID token, else 401;
 * 2. platform user and role;
 * 3. site context: from `X-Site-Id` on routes declaring `siteScope: 'site'` (400 `site_required` when absent
 *    and the credential is valid, 403 for an unknown site or no access) or from the path parameter named by
 *    `config.siteParam` (404 unknown, 403 no access);
 * 4. the route's `config.permission` against the role (auth/permissions.ts), else 403.
 * Routes with `config.public` skip all of it; routes with `config.credential: 'optional'` skip it
 * when no credential is sent. Also bootstraps the platform owner on first start.
 */
export const authPlugin = fp(
  async (app: FastifyInstance) => {
    const { trellis } = app;
    const verifyIdToken = idTokenVerifierFrom(trellis.config, trellis.outbound);
    const bootstrap = await bootstrapOwner({
      platform: trellis.platform,
      ownerKey: trellis.config.CMS_OWNER_KEY,
      clock: trellis.clock,
    });
    app.decorate('ownerBootstrap', bootstrap);
    const givenKey = trellis.config.CMS_OWNER_KEY;
    const keyStatus =
      bootstrap === null && givenKey
        ? await ownerKeyStatus(trellis.platform, givenKey, trellis.clock.now())
        : null;
    app.decorate('ownerKeyStatus', keyStatus);
    const keyWarning = ownerKeyWarning(keyStatus);
    if (keyWarning) app.log.warn({ code: 'owner_key_mismatch', status: keyStatus }, keyWarning);
    const routeTable: RouteEntry[] = [];
    app.decorate('routeTable', routeTable);
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const config = (route.config ?? {}) as RouteEntry['config'];
      if (route.url.startsWith('/api/') && config.siteScope === undefined) {
        throw new Error(
          `${methods.join(',')} ${route.url} declares no config.siteScope ('site' needs X-Site-Id, 'none' does not)`,
        );
      }
      for (const method of methods) routeTable.push({ method, url: route.url, config });
      if (!config.public && !config.permission && !config.siteParam && config.siteScope === 'site') {
        app.log.warn(
          { route: `${methods.join(',')} ${route.url}` },
          'site-scoped route declares no permission; the default applies (read: site:read, write: site:update)',
        );
      }
    });
    app.decorateRequest('principal', null);
    app.decorateRequest('site', null);

    async function resolveSite(
      request: FastifyRequest,
      siteId: string,
      unknownIs: NamedSite['unknownIs'],
    ): Promise<void> {
      const principal = request.principal;
      if (!principal) return;
      const unknown = () =>
        unknownIs === 'not_found'
          ? TrellisError.of('not_found', { resource: 'Site' })
          : TrellisError.of('forbidden', { resource: 'site' });
      if (!SiteId.safeParse(siteId).success) throw unknown();
      const site = await trellis.accessCache.site(trellis.platform, siteId);
      if (!site) throw unknown();
      const role: Role | null = await siteRoleFor({
        platform: trellis.platform,
        principal,
        siteId,
        access: trellis.accessCache,
      });
      if (!role) throw TrellisError.of('forbidden', { resource: 'site' });
      const graph = await trellis.engine.openGraph(site.graphName);
      if (!graph) {
        throw TrellisError.of('engine_error', { detail: `the graph of ${site.id} is missing` });
      }
      request.site = { id: site.id, graphName: site.graphName, graph, role };
    }

    /** Steps 1–3: sets the request's principal and, when it names a site, its site context. */
    async function resolveAccess(
      request: FastifyRequest,
      token: string,
      tokenHash: string,
      site: NamedSite | null,
      implied: boolean,
    ): Promise<number | null> {
      const { principal, keyExpiresAtMs } = await authenticate({
        token,
        tokenHash,
        platform: trellis.platform,
        cache: trellis.apiKeyCache,
        access: trellis.accessCache,
        verifyIdToken,
        clock: trellis.clock,
      });
      request.principal = principal;
      if (site) await resolveSite(request, site.id, site.unknownIs);
      // A graph-level key without X-Site-Id: its own site.
      else if (implied && principal.graphSiteId)
        await resolveSite(request, principal.graphSiteId, 'forbidden');
      return keyExpiresAtMs;
    }

    /** Step 4: the route's permission against the caller's role on the site, or on the platform. */
    function checkPermission(request: FastifyRequest, config: RouteEntry['config']): void {
      const site = request.site;
      if (!site && request.principal?.graphSiteId) {
        throw TrellisError.of(
          'forbidden',
          { resource: 'operation' },
          { hint: `A graph-level key reaches only the site routes of ${request.principal.graphSiteId}.` },
        );
      }
      if (site) {
        const permission = config.permission ?? defaultPermission(request.method);
        if (!roleHasPermission(site.role, permission)) {
          throw TrellisError.of(
            'forbidden',
            { resource: 'operation' },
            { hint: `It needs the ${permission} permission; your role on ${site.id} is ${site.role}.` },
          );
        }
      } else if (config.permission) {
        const platformRole = request.principal?.platformRole;
        if (!platformRole || !roleHasPermission(platformRole, config.permission)) {
          throw TrellisError.of('forbidden', { resource: 'operation' });
        }
      }
    }

    // A callback hook, so that the common case — the same API key on the same site as a request
    // moments ago, served from the access cache — takes no engine read but the access epoch's
    // (one point read, shared by the requests that arrive while it runs).
    app.addHook('onRequest', (request, _reply, done) => {
      // Once: Fastify builds `routeOptions` anew on every access; the route's config carries
      // its URL pattern (`url`, undefined when no route matched).
      const config = request.routeOptions.config;
      // No route matched: the not-found handler answers 404 and touches nothing.
      if (config?.url === undefined || config.public) return done();

      const { token, hash } = requestCredential(request);
      if (hash === null && config.credential === 'optional') return done();
      if (token === null || hash === null) return done(TrellisError.of('unauthenticated'));
      // The site the request names: the path parameter `config.siteParam`, else `X-Site-Id` on
      // site-scoped routes. With the credential, it is the access cache's key. A missing
      // `X-Site-Id` is answered only once the credential has passed (§5.4: token check first),
      // so a bad credential is 401 with or without the header.
      let site: NamedSite | null = null;
      let siteMissing = false;
      if (config.siteParam) {
        const id = (request.params as Record<string, string | undefined>)[config.siteParam] ?? '';
        site = { id, unknownIs: 'not_found' };
      } else if (config.siteScope === 'site') {
        const header = request.headers['x-site-id'];
        if (typeof header === 'string' && header.length > 0) site = { id: header, unknownIs: 'forbidden' };
        else siteMissing = true;
      }
      // A graph-level key (`tg_…`) implies its own site when the header is missing.
      const implied = siteMissing && isGraphKey(token);
      if (implied) siteMissing = false;
      const key = site
        ? `${hash}\u0000${site.unknownIs}\u0000${site.id}`
        : implied
          ? `${hash}\u0000implied`
          : hash;
      // First the cross-instance signal: a key revoked or a member changed on another server
      // since this request arrived drops the caches before they are used (auth/access-epoch.ts).
      // A route's `prefetch` starts its read in the same round trip (the access cache's site for
      // this credential, if it holds one; used only once the access check below has passed).
      const prefetch = config.prefetch;
      trellis.accessEpoch
        .check(
          prefetch === undefined
            ? undefined
            : () => {
                const cached = trellis.accessCache.resolvedAccess(key)?.site;
                if (cached) prefetch(request, cached);
              },
        )
        .then(() => resolveRequest(request, config, token, hash, key, site, siteMissing, implied, done));
    });

    function resolveRequest(
      request: FastifyRequest,
      config: RouteEntry['config'],
      token: string,
      hash: string,
      key: string,
      site: NamedSite | null,
      siteMissing: boolean,
      implied: boolean,
      done: (error?: Error) => void,
    ): void {
      const known = trellis.accessCache.resolvedAccess(key);
      if (known !== undefined) {
        trellis.apiKeyCache.countHit();
        request.principal = known.principal;
        request.site = known.site;
        if (siteMissing) {
          done(TrellisError.of('site_required'));
          return;
        }
        try {
          checkPermission(request, config);
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
        return;
      }

      const generation = trellis.accessCache.generation;
      resolveAccess(request, token, hash, site, implied)
        .then((keyExpiresAtMs) => {
          const principal = request.principal;
          // ID tokens carry their own expiry and claims: they are verified on every request.
          if (principal?.kind === 'api_key') {
            trellis.accessCache.rememberAccess(
              key,
              { principal, site: request.site, keyExpiresAtMs },
              generation,
            );
          }
          if (siteMissing) throw TrellisError.of('site_required');
          checkPermission(request, config);
        })
        .then(
          () => done(),
          (error: Error) => done(error),
        );
    }
  },
  { name: 'trellis-auth', dependencies: ['trellis-context'] },
);
