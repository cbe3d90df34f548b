import {
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyParams,
  CreateApiKeyBody,
  PageQuery,
  RevokeApiKeyResponse,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { roleAtLeast, roleHasPermission } from '../../auth/permissions';
import { siteRoleFor } from '../../auth/site-role';
import { errorResponses } from '../../http/error-responses';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, toApiKeyView } from '../api-keys';
import { getSite } from '../sites';

const errors = errorResponses(400, 401, 403, 404);

/**
 * Spec §4 API keys (site-scoped): list (metadata only), create (secret shown once), revoke
 * (the key stops working at once: its cache entry is dropped).
 */
export const apiKeysRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform, apiKeyCache } = app.trellis;

  app.get(
    '/api/auth/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'API keys of the current site (no secrets)',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: ApiKeyList, ...errors },
      },
      config: { siteScope: 'site', permission: 'keys:manage' },
    },
    async (request, reply) => {
      const keys = (await listApiKeys(platform, siteOf(request).id)).map(toApiKeyView);
      const page = pageOf(keys, request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.post(
    '/api/auth/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Mint an API key; the answer carries its secret, shown this once',
        body: CreateApiKeyBody,
        response: { 201: ApiKeyCreated, ...errors },
      },
      config: { siteScope: 'site', permission: 'keys:manage' },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const principal = request.principal!;
      const { name, role, expiresAt } = request.body;
      if (!roleAtLeast(site.role, role)) {
        throw TrellisError.of(
          'forbidden',
          { resource: 'operation' },
          { hint: `Your role on ${site.id} is ${site.role}; a key cannot have a higher role (${role}).` },
        );
      }
      if (expiresAt && Date.parse(expiresAt) <= app.trellis.clock.now().getTime()) {
        throw TrellisError.of('validation_failed', { detail: 'body.expiresAt: must be in the future' });
      }
      if (request.body.graph && request.body.allowedSites?.some((other) => other !== site.id)) {
        throw TrellisError.of('validation_failed', {
          detail: 'body.allowedSites: a graph-level key reaches only the graph of its own site',
        });
      }
      const allowedSites = [...new Set([site.id, ...(request.body.allowedSites ?? [])])].sort();
      for (const other of allowedSites) {
        if (other === site.id) continue;
        const otherRole = (await getSite(platform, other))
          ? await siteRoleFor({ platform, principal, siteId: other })
          : null;
        if (!otherRole || !roleHasPermission(otherRole, 'keys:manage') || !roleAtLeast(otherRole, role)) {
          throw TrellisError.of(
            'forbidden',
            { resource: 'site' },
            { hint: `You cannot mint ${role} keys for ${other}.` },
          );
        }
      }
      const { record, token } = await platform.transaction((tx) =>
        createApiKey(tx, {
          name,
          role,
          userId: principal.userId,
          siteId: site.id,
          allowedSites,
          expiresAt: expiresAt ?? null,
          actor: actorOf(principal),
          clock: app.trellis.clock,
          graph: request.body.graph ? site.graphName : null,
        }),
      );
      request.log.info({ keyId: record.id, role }, 'api key created');
      return reply.status(201).send({ ...toApiKeyView(record), secret: token });
    },
  );

  app.delete(
    '/api/auth/api-keys/:id',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Revoke an API key; it stops working at once',
        params: ApiKeyParams,
        response: { 200: RevokeApiKeyResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'keys:manage' },
    },
    async (request) => {
      const site = siteOf(request);
      const id = request.params.id;
      const existing = await getApiKey(platform, id);
      if (!existing || existing.siteId !== site.id || existing.revokedAt !== null) {
        throw TrellisError.of('not_found', { resource: 'API key' });
      }
      if (!roleAtLeast(site.role, existing.role)) {
        throw TrellisError.of(
          'forbidden',
          { resource: 'operation' },
          { hint: `A ${site.role} cannot revoke a ${existing.role} key.` },
        );
      }
      const revoked = await platform.transaction((tx) =>
        revokeApiKey(tx, { id, actor: actorOf(request.principal!), clock: app.trellis.clock }),
      );
      // After the commit, so a lookup that raced the revocation cannot leave the live record cached.
      if (revoked) apiKeyCache.invalidate(revoked.lookupId);
      request.log.info({ keyId: id }, 'api key revoked');
      return { ok: true as const, id };
    },
  );
};
