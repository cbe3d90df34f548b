import type { z } from 'zod';
import type { CallOptions, Transport } from '../http/transport';
import { ApiKeyCacheMetrics, HealthDetailResponse, HealthResponse } from '../schemas';

export type Health = z.output<typeof HealthResponse>;
export type HealthDetail = z.output<typeof HealthDetailResponse>;
export type ApiKeyCacheStats = z.output<typeof ApiKeyCacheMetrics>;

/** Health and metrics (public endpoints; no credential needed). */
export function createHealthApi(transport: Transport) {
  return {
    /** GET /api/health: liveness; always 200 and makes no engine call. */
    get: (options: CallOptions = {}): Promise<Health> =>
      transport.request({ method: 'get', path: 'health', schema: HealthResponse, ...options }),
    /** GET /api/health/detail: probes the engine (3 s); `degraded` when it is unreachable. */
    detail: (options: CallOptions = {}): Promise<HealthDetail> =>
      transport.request({ method: 'get', path: 'health/detail', schema: HealthDetailResponse, ...options }),
    /** GET /api/metrics/apikey-cache: the API-key cache counters. */
    apiKeyCache: (options: CallOptions = {}): Promise<ApiKeyCacheStats> =>
      transport.request({
        method: 'get',
        path: 'metrics/apikey-cache',
        schema: ApiKeyCacheMetrics,
        ...options,
      }),
  };
}
export type HealthApi = ReturnType<typeof createHealthApi>;
