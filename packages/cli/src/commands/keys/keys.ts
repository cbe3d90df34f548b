import type { CreateApiKeyBody } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms keys list`: metadata only; secrets are never shown again. */
export async function keysList({ site, out }: Deps): Promise<number> {
  const keys = await site.apiKeys.list();
  out.result(keys, () => table(keys, ['id', 'name', 'role', 'prefix', 'createdAt', 'lastUsedAt']));
  return ExitCode.ok;
}

/** `cms keys create --name --role`: prints the secret once. */
export async function keysCreate({ site, out, body }: Deps & { body: CreateApiKeyBody }): Promise<number> {
  const key = await site.apiKeys.create(body);
  out.result(key, () => [
    `Created ${key.graph ? `graph-level key for ${key.graph}` : 'key'} ${key.id} (${key.name}, ${key.role}).`,
    `Secret (shown once, store it now): ${key.secret}`,
  ]);
  return ExitCode.ok;
}

/** `cms keys revoke <id>`: the key stops working at once. */
export async function keysRevoke({ site, out, id }: Deps & { id: string }): Promise<number> {
  const answer = await site.apiKeys.revoke(id);
  out.result(answer, () => `Revoked key ${id}.`);
  return ExitCode.ok;
}
