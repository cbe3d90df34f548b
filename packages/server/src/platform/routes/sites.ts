import {
  CreateSiteBody,
  DeleteSiteResponse,
  PageQuery,
  Site,
  SiteList,
  SiteParams,
  TrellisError,
  UpdateSiteBody,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bumpAccessEpoch } from '../../auth/access-epoch';
import { actorOf } from '../../auth/actor';
import { siteRoleFor } from '../../auth/site-role';
import { errorResponses } from '../../http/error-responses';
import { ifMatchOf, withEtag } from '../../http/etag';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { checkPrecondition, valueTag } from '../../shared/entity-tag';
import { accessibleSites } from '../accessible-sites';
import { createSite } from '../create-site';
import { purgeExpiredSites } from '../purge-deleted-sites';
import {
  collectionsOf,
  getSite,
  SITE_RETENTION_DAYS,
  type SiteRecord,
  siteProps,
  toSiteRecord,
  toSiteView,
} from '../sites';
import { getUser } from '../users';

const errors = errorResponses(400, 401, 403, 404, 409);

/** Spec §4 Sites: list, create, get, partial update, owner-only soft delete. No X-Site-Id. */
export const sitesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform, engine } = app.trellis;

  // Soft-deleted sites are purged once their retention period ends: at start, then hourly.
  const purge = () =>
    purgeExpiredSites({ engine, platform, clock: app.trellis.clock }).then(
      (ids) => {
        if (ids.length > 0) app.log.info({ sites: ids }, 'purged deleted sites after their retention period');
      },
      (error: unknown) => app.log.error({ err: error }, 'purging deleted sites failed'),
    );
  let purgeTimer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    await purge();
    purgeTimer = setInterval(purge, 3_600_000);
    purgeTimer.unref();
  });
  app.addHook('onClose', async () => clearInterval(purgeTimer));

  app.get(
    '/api/sites',
    {
      schema: {
        tags: ['sites'],
        summary: 'Sites the caller can access (all for owner/admin)',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: SiteList },
      },
      config: { siteScope: 'none' },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const sites = await accessibleSites(platform, principal);
      let visible: SiteRecord[] = sites;
      if (!principal.platformRole || principal.allowedSites !== null) {
        // An API key sees only the sites where it still has a role.
        visible = [];
        for (const site of sites) {
          if (await siteRoleFor({ platform, principal, siteId: site.id })) visible.push(site);
        }
      }
      const page = pageOf(visible.map(toSiteView), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.post(
    '/api/sites',
    {
      schema: {
        tags: ['sites'],
        summary: 'Create a site; the creator becomes its admin',
        body: CreateSiteBody,
        response: { 201: Site, ...errors },
      },
      config: { siteScope: 'none' },
    },
    async (request, reply) => {
      const principal = request.principal!;
      if (principal.allowedSites !== null) {
        throw TrellisError.of(
          'forbidden',
          { resource: 'operation' },
          { hint: 'A site-restricted API key cannot create sites; use an ID token or the owner key.' },
        );
      }
      const body = request.body;
      const user = await getUser(platform, principal.userId);
      const site = await createSite({
        engine,
        platform,
        clock: app.trellis.clock,
        input: {
          name: body.name,
          slug: body.slug,
          publicUrl: body.publicUrl,
          description: body.description,
          mantra: body.mantra,
          theme: body.theme,
          searchEmission: body.searchEmission,
          collections: body.collections,
          starterKit: body.starterKit ?? user?.persona ?? 'none',
          creatorId: principal.userId,
          actor: actorOf(principal),
        },
      });
      request.log.info({ siteId: site.id, graphName: site.graphName }, 'site created');
      return withEtag(reply, valueTag(toSiteView(site)))
        .status(201)
        .send(toSiteView(site));
    },
  );

  app.get(
    '/api/sites/:id',
    {
      schema: {
        tags: ['sites'],
        summary: 'One site',
        params: SiteParams,
        response: { 200: Site, ...errors },
      },
      config: { siteScope: 'none', siteParam: 'id', permission: 'site:read' },
    },
    async (request, reply) => {
      const site = await getSite(platform, siteOf(request).id);
      if (!site) throw TrellisError.of('not_found', { resource: 'Site' });
      return withEtag(reply, valueTag(toSiteView(site))).send(toSiteView(site));
    },
  );

  app.put(
    '/api/sites/:id',
    {
      schema: {
        tags: ['sites'],
        summary: 'Change a site (only the fields sent; graphName never changes)',
        description:
          'With `If-Match` (the ETag of `GET /api/sites/{id}`), 409 `version_conflict` when the site changed since it was read.',
        params: SiteParams,
        body: UpdateSiteBody,
        response: { 200: Site, ...errors },
      },
      config: { siteScope: 'none', siteParam: 'id', permission: 'site:update' },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const body = request.body;
      const updated = await platform.transaction(async (tx) => {
        const node = await tx.getNode(siteOf(request).id);
        const current = node ? toSiteRecord(node) : null;
        if (!current || current.deletedAt) throw TrellisError.of('not_found', { resource: 'Site' });
        checkPrecondition({
          precondition: ifMatchOf(request),
          current: valueTag(toSiteView(current)),
          resource: `site ${current.id}`,
        });
        if (body.slug !== undefined && body.slug !== current.slug) {
          throw TrellisError.of('business_rule', {
            detail: 'The slug of a site cannot change: the site id `site:<slug>` is derived from it.',
          });
        }
        const next: SiteRecord = {
          ...current,
          name: body.name ?? current.name,
          publicUrl: body.publicUrl === undefined ? current.publicUrl : body.publicUrl,
          description: body.description ?? current.description,
          mantra: body.mantra ?? current.mantra,
          theme: body.theme ? { ...current.theme, ...body.theme } : current.theme,
          searchEmission: body.searchEmission ?? current.searchEmission,
        };
        if (body.collections !== undefined) {
          // replaced as a whole; `{}` removes them
          delete next.collections;
          Object.assign(next, collectionsOf(body.collections));
        }
        await tx.updateNode(current.id, { props: siteProps(next) });
        await tx.appendAudit({
          actor: actorOf(principal),
          action: 'site.update',
          target: current.id,
          data: { fields: Object.keys(body).filter((k) => k !== 'slug') },
        });
        return toSiteRecord({ id: current.id, labels: [], props: siteProps(next) });
      });
      return withEtag(reply, valueTag(toSiteView(updated))).send(toSiteView(updated));
    },
  );

  app.delete(
    '/api/sites/:id',
    {
      schema: {
        tags: ['sites'],
        summary: `Soft-delete a site (owner only); its graph is kept ${SITE_RETENTION_DAYS} days`,
        params: SiteParams,
        response: { 200: DeleteSiteResponse, ...errors },
      },
      config: { siteScope: 'none', siteParam: 'id', permission: 'site:delete' },
    },
    async (request) => {
      const principal = request.principal!;
      const now = app.trellis.clock.now();
      const deletedAt = now.toISOString();
      const purgeAfter = new Date(now.getTime() + SITE_RETENTION_DAYS * 86_400_000).toISOString();
      await platform.transaction(async (tx) => {
        const node = await tx.getNode(siteOf(request).id);
        const current = node ? toSiteRecord(node) : null;
        if (!current || current.deletedAt) throw TrellisError.of('not_found', { resource: 'Site' });
        await tx.updateNode(current.id, { props: siteProps({ ...current, deletedAt, purgeAfter }) });
        await bumpAccessEpoch(tx);
        await tx.appendAudit({
          actor: actorOf(principal),
          action: 'site.delete',
          target: current.id,
          data: { graphName: current.graphName, purgeAfter },
        });
      });
      request.log.info({ siteId: siteOf(request).id, purgeAfter }, 'site soft-deleted');
      return { ok: true as const, id: siteOf(request).id, deletedAt };
    },
  );
};
