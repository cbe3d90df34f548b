import { ApiKeyCacheMetrics, HealthDetailResponse, HealthResponse } from '@trelliscms/core';
import type { CallOptions, Transport } from '../http/transport';

/** Health and metrics (public endpoints; no credential needed). */
export function createHealthApi(transport: Transport) {
  return {
    /** GET /api/health: liveness; always 200 and makes no engine call. */
    get: (options: CallOptions = {}): Promise<HealthResponse> =>
      transport.request({ method: 'get', path: 'health', schema: HealthResponse, ...options }),
    /** GET /api/health/detail: probes the engine (3 s); `degraded` when it is unreachable. */
    detail: (options: CallOptions = {}): Promise<HealthDetailResponse> =>
      transport.request({ method: 'get', path: 'health/detail', schema: HealthDetailResponse, ...options }),
    /** GET /api/metrics/apikey-cache: the API-key cache counters. */
    apiKeyCache: (options: CallOptions = {}): Promise<ApiKeyCacheMetrics> =>
      transport.request({
        method: 'get',
        path: 'metrics/apikey-cache',
        schema: ApiKeyCacheMetrics,
        ...options,
      }),
  };
}
export type HealthApi = ReturnType<typeof createHealthApi>;
