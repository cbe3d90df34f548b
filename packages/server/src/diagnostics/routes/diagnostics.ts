import {
  ApiKeyCacheMetrics,
  AuditChecklist,
  AuditQuery,
  AuditStatus,
  EngineProcedures,
  EngineProceduresFailure,
  HealthDetailResponse,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import type { Graph, ProbeResult } from '../../engines/port';
import { errorResponses } from '../../http/error-responses';
import { getSite } from '../../platform/sites';
import { auditGraphFor } from '../audit-graph';

/** The engine probe timeout of /health/detail (docs/api-spec.md §8). */
export const HEALTH_PROBE_TIMEOUT_MS = 3_000;

const errors = errorResponses(400, 401, 403, 404);

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Spec §4 Health and diagnostics: /health/detail and /metrics/apikey-cache (public), the
 * engine's procedures (admin), audit-chain verification and the audit checklist.
 */
export const diagnosticsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { engine, platform, platformGraphName, apiKeyCache, auditAnchors } = app.trellis;

  /** Probes the engine; a probe that hangs past the timeout counts as unreachable. */
  async function probeEngine(): Promise<ProbeResult> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ProbeResult>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            reachable: false,
            probeMs: null,
            error: `no answer within ${HEALTH_PROBE_TIMEOUT_MS} ms`,
          }),
        HEALTH_PROBE_TIMEOUT_MS + 250,
      );
    });
    try {
      return await Promise.race([
        engine.probe(HEALTH_PROBE_TIMEOUT_MS).catch(
          (error: unknown): ProbeResult => ({
            reachable: false,
            probeMs: Math.round(performance.now() - started),
            error: errorMessage(error),
          }),
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  app.get(
    '/api/health/detail',
    {
      schema: {
        tags: ['health'],
        summary: 'Engine probe (3 s timeout) and API-key cache counters; always 200',
        security: [],
        response: { 200: HealthDetailResponse },
      },
      config: { siteScope: 'none', public: true },
    },
    async () => {
      const started = performance.now();
      const probedAt = app.trellis.clock.now().toISOString();
      const probe = await probeEngine();
      return {
        status: probe.reachable ? ('ok' as const) : ('degraded' as const),
        degraded: !probe.reachable,
        cms: app.trellis.version,
        engine: {
          endpoint: engine.endpoint(),
          reachable: probe.reachable,
          httpStatus: null,
          probeMs: probe.probeMs === null ? null : Math.round(probe.probeMs),
          error: probe.error,
        },
        apiKeyCache: apiKeyCache.stats(),
        probedAt,
        durationMs: Math.round(performance.now() - started),
      };
    },
  );

  app.get(
    '/api/metrics/apikey-cache',
    {
      schema: {
        tags: ['health'],
        summary: 'API-key cache counters',
        security: [],
        response: { 200: ApiKeyCacheMetrics },
      },
      config: { siteScope: 'none', public: true },
    },
    async () => {
      const { hits, misses, evictions, invalidations, size } = apiKeyCache.stats();
      return { hits, misses, evictions, invalidations, size };
    },
  );

  app.get(
    '/api/maintenance/engine/procedures',
    {
      schema: {
        tags: ['maintenance'],
        summary: 'The operations or procedures the graph engine offers',
        response: { 200: EngineProcedures, 502: EngineProceduresFailure, ...errors },
      },
      config: { siteScope: 'site', permission: 'maintenance:run' },
    },
    async (request, reply) => {
      try {
        const listing = await app.withQueryTimeout(engine.procedures());
        return {
          ok: true,
          via: listing.via,
          procedureCount: listing.procedures.length,
          procedures: listing.procedures,
          attempts: listing.attempts,
        };
      } catch (error) {
        if (error instanceof TrellisError && error.code === 'query_timeout') throw error;
        const details = (error as { details?: { attempts?: unknown } }).details;
        const attempts = Array.isArray(details?.attempts)
          ? (details.attempts as Record<string, unknown>[])
          : [];
        request.log.warn({ err: error }, 'engine introspection failed');
        return reply.status(502).send({
          ok: false as const,
          error: `No introspection query worked: ${errorMessage(error)}`,
          code: 'engine_error',
          hint: 'Check that the engine is reachable (GET /api/health/detail) and that the user may list procedures.',
          attempts,
        });
      }
    },
  );

  const graphFor = (request: Parameters<typeof auditGraphFor>[0]['request'], name: string): Graph =>
    auditGraphFor({ request, name, platform, platformGraphName });

  app.get(
    '/api/audit/verify',
    {
      schema: {
        tags: ['audit'],
        summary:
          "Verify a graph's audit chain under the server's key and against its heads anchored outside the graph (200 whether intact or broken)",
        querystring: AuditQuery,
        response: { 200: AuditStatus, ...errors },
      },
      config: { siteScope: 'site', permission: 'site:read' },
    },
    async (request) => {
      const graph = await graphFor(request, request.query.graph);
      const verdict = await app.withQueryTimeout(auditAnchors.verify(request.query.graph, graph));
      return { ...verdict, graph: request.query.graph };
    },
  );

  app.post(
    '/api/audit/checklist',
    {
      schema: {
        tags: ['audit'],
        summary: 'Run the integrity checklist of a graph and record the run in its audit chain',
        querystring: AuditQuery,
        response: { 200: AuditChecklist, ...errors },
      },
      config: { siteScope: 'site', permission: 'maintenance:run' },
    },
    async (request) => {
      const name = request.query.graph;
      const graph = await graphFor(request, name);
      const now = app.trellis.clock.now().toISOString();
      const verdict = await app.withQueryTimeout(auditAnchors.verify(name, graph));
      const probe = await probeEngine();
      const rows: AuditChecklist['rows'] = [
        {
          feature: 'audit_chain',
          status: verdict.status,
          version: verdict.last_seq > 0 ? String(verdict.last_seq) : null,
          last_verified_at: verdict.verified_at,
          message: verdict.reason ?? `${verdict.records} records`,
        },
        {
          feature: 'engine',
          status: probe.reachable ? 'ok' : 'unreachable',
          version: engine.name,
          last_verified_at: now,
          message: probe.error,
        },
      ];
      if (name !== platformGraphName && request.site) {
        const site = await getSite(platform, request.site.id);
        rows.push({
          feature: 'site_record',
          status: site?.graphName === name ? 'ok' : 'mismatch',
          version: null,
          last_verified_at: now,
          message: site ? `${site.id} → ${site.graphName}` : 'the site record is missing',
        });
        const types = await graph.findNodes({ label: 'ContentType', limit: 1 });
        const templates = await graph.findNodes({ label: 'Template', limit: 1 });
        rows.push({
          feature: 'site_content',
          status: 'ok',
          version: null,
          last_verified_at: now,
          message: `${types.total} content types, ${templates.total} templates`,
        });
      }
      await graph.transaction(async (tx) => {
        await tx.appendAudit({
          actor: actorOf(request.principal!),
          action: 'audit.checklist',
          target: name,
          data: { rows: rows.map((row) => ({ feature: row.feature, status: row.status })) },
        });
      });
      return { rows };
    },
  );
};
