import { ExitCode } from '../../errors';
import type { CommandDeps } from '../context';

/** `cms health`: liveness, or with `detail` the engine probe; exits 1 when degraded. */
export async function health({
  client,
  out,
  detail,
}: Omit<CommandDeps, 'io'> & { detail: boolean }): Promise<number> {
  if (!detail) {
    const answer = await client.health.get();
    out.result(answer, () => [
      `status: ${answer.status}`,
      `platform graph: ${answer.platformGraph}`,
      `last build: ${answer.lastBuildId ?? 'none'}${answer.lastBuildAt ? ` at ${answer.lastBuildAt}` : ''}`,
      ...(answer.instanceId ? [`instance: ${answer.instanceId}`] : []),
    ]);
    return ExitCode.ok;
  }
  const answer = await client.health.detail();
  out.result(answer, () => [
    `status: ${answer.status} (cms ${answer.cms})`,
    `engine: ${answer.engine.endpoint} ${answer.engine.reachable ? 'reachable' : 'UNREACHABLE'}${
      answer.engine.probeMs === null ? '' : ` in ${answer.engine.probeMs} ms`
    }${answer.engine.error ? `: ${answer.engine.error}` : ''}`,
    `api-key cache: ${answer.apiKeyCache.hits} hits, ${answer.apiKeyCache.misses} misses, size ${answer.apiKeyCache.size}`,
  ]);
  return answer.degraded ? ExitCode.apiError : ExitCode.ok;
}
