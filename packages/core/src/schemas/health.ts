import { z } from 'zod';
import { DateTime } from './common';

/** GET /api/health: always 200, makes no engine call. */
export const HealthResponse = z
  .object({
    status: z.string(),
    platformGraph: z.string(),
    lastBuildAt: DateTime.nullable(),
    lastBuildId: z.string().nullable(),
    /** The server process that answered (`CMS_INSTANCE_ID`, else hostname:pid:random); differs between the servers of one platform. Optional for clients of older servers. */
    instanceId: z.string().optional(),
  })
  .meta({ id: 'Health' });
export type HealthResponse = z.infer<typeof HealthResponse>;

const Counters = {
  hits: z.number().int(),
  misses: z.number().int(),
  evictions: z.number().int(),
  invalidations: z.number().int(),
  size: z.number().int(),
};

/** GET /api/metrics/apikey-cache */
export const ApiKeyCacheMetrics = z.object(Counters).meta({ id: 'ApiKeyCacheMetrics' });
export type ApiKeyCacheMetrics = z.infer<typeof ApiKeyCacheMetrics>;

/** GET /api/health/detail: always 200; `degraded` when the engine is unreachable. */
export const HealthDetailResponse = z
  .object({
    status: z.enum(['ok', 'degraded']),
    degraded: z.boolean(),
    cms: z.string(),
    engine: z.object({
      endpoint: z.string(),
      reachable: z.boolean(),
      httpStatus: z.number().int().nullable(),
      probeMs: z.number().int().nullable(),
      error: z.string().nullable(),
    }),
    apiKeyCache: z.object({ ...Counters, staleServed: z.number().int() }),
    probedAt: DateTime,
    durationMs: z.number().int(),
  })
  .meta({ id: 'HealthDetail' });
export type HealthDetailResponse = z.infer<typeof HealthDetailResponse>;
