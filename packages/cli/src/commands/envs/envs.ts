import type { Environment } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';
import { toEnvironmentId } from '../release-ids';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

const rows = (environments: Environment[]) =>
  table(
    environments.map((environment) => ({
      ...environment,
      publicUrl: environment.publicUrlOverride ?? '',
    })),
    ['id', 'name', 'order', 'autoBuild', 'requiresApproval', 'publicUrl'],
  );

/** `cms envs list`: the site's environments, in order. */
export async function envsList({ site, out }: Deps): Promise<number> {
  const environments = await site.releases.environments();
  out.result(environments, () => rows(environments));
  return ExitCode.ok;
}

/**
 * `cms envs delete <name>`: dev and prod always exist (409); an environment with items live in
 * it or a pending deployment to it is refused (409 `in_use`, listed).
 */
export async function envsDelete({ site, out, name }: Deps & { name: string }): Promise<number> {
  const id = toEnvironmentId(name);
  await site.releases.deleteEnvironment(id);
  out.result({ ok: true, id }, () => `Deleted ${id}.`);
  return ExitCode.ok;
}

/** The settings `cms envs set` changes; absent ones keep their stored value. */
export interface EnvSettings {
  label?: string;
  order?: number;
  autoBuild?: boolean;
  requiresApproval?: boolean;
  /** A URL, or null to remove the override. */
  publicUrl?: string | null;
}

/**
 * `cms envs set <name> [settings]`: creates the environment or changes the given settings.
 * The server replaces an environment as a whole (PUT), so the stored settings are read first
 * and only the given ones change.
 */
export async function envsSet({
  site,
  out,
  name,
  ...settings
}: Deps & { name: string } & EnvSettings): Promise<number> {
  const id = toEnvironmentId(name);
  const current = (await site.releases.environments()).find((environment) => environment.id === id);
  const body: Parameters<typeof site.releases.putEnvironment>[1] = {
    name: settings.label ?? current?.name,
    order: settings.order ?? current?.order,
    autoBuild: settings.autoBuild ?? current?.autoBuild,
    requiresApproval: settings.requiresApproval ?? current?.requiresApproval,
    publicUrlOverride: settings.publicUrl === undefined ? current?.publicUrlOverride : settings.publicUrl,
  };
  const saved = await site.releases.putEnvironment(id, body);
  out.result(saved, () => [`${current ? 'Updated' : 'Created'} ${saved.id}.`, ...rows([saved])]);
  return ExitCode.ok;
}
