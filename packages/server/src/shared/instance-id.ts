import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * The id of this server process among the servers sharing one platform: `CMS_INSTANCE_ID`
 * when configured, else `<hostname>:<pid>:<8 random hex>` — stable for the life of the process,
 * different for every start. It names the holder of build leases and deployment claims, and
 * `GET /api/health` shows it (docs/scaling.md § Several API servers).
 */
export function makeInstanceId(configured?: string): string {
  return configured ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}
