import type { CreateContentTypeBody } from '@trelliscms/core';
import { isApiError } from '@trelliscms/sdk';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import { readDefinitions } from '../../io/read-definitions';
import type { SiteCommandDeps } from '../context';
import { isSubset } from '../site-folder/site-folder';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms types list` */
export async function typesList({ site, out }: Deps): Promise<number> {
  const types = await site.types.list();
  out.result(types, () =>
    table(types, ['name', 'label', 'fieldCount', 'relationshipCount', 'routePattern', 'emitPages']),
  );
  return ExitCode.ok;
}

/** `cms types get <name>`: the full definition as JSON. */
export async function typesGet({ site, out, name }: Deps & { name: string }): Promise<number> {
  const type = await site.types.get(name);
  out.result(type, () => JSON.stringify(type, null, 2));
  return ExitCode.ok;
}

/**
 * `cms types delete <name> [--cascade]`: 409 `in_use` (the holders printed) while items or
 * definitions use the type; `--cascade` deletes its items with it.
 */
export async function typesDelete({
  site,
  out,
  name,
  cascade,
}: Deps & { name: string; cascade: boolean }): Promise<number> {
  await site.types.delete(name, { cascade });
  out.result({ ok: true, type: name, cascade }, () =>
    cascade ? `Deleted type ${name} and its items.` : `Deleted type ${name}.`,
  );
  return ExitCode.ok;
}

/**
 * `cms types apply <file-or-folder> [--dry-run]`: creates each type that does not exist,
 * PATCHes the ones that differ and leaves the others unchanged, in file order (so referenced
 * types can come first). Safe to run again; a dry run reads only.
 */
export async function typesApply({
  site,
  out,
  io,
  target,
  dryRun = false,
}: SiteCommandDeps & { target: string; dryRun?: boolean }): Promise<number> {
  const definitions = await readDefinitions<CreateContentTypeBody>({
    fs: io.fs,
    cwd: io.cwd,
    target,
    key: 'types',
    idField: 'name',
  });
  const results: { name: string; action: 'created' | 'updated' | 'unchanged' }[] = [];
  for (const definition of definitions) {
    let current: unknown = null;
    try {
      current = await site.types.get(definition.name);
    } catch (error) {
      if (!(isApiError(error) && error.status === 404)) throw error;
    }
    const action = !current ? 'created' : isSubset(definition, current) ? 'unchanged' : 'updated';
    if (!dryRun && action === 'created') await site.types.create(definition);
    if (!dryRun && action === 'updated') {
      const { name, ...patch } = definition;
      await site.types.update(name, patch);
    }
    results.push({ name: definition.name, action });
    out.note(
      `${dryRun && action !== 'unchanged' ? `would ${action.replace(/d$/, '')}` : action} ${definition.name}`,
    );
  }
  out.result({ ok: true, dryRun, types: results }, () => {
    const count = (action: string) => results.filter((result) => result.action === action).length;
    return dryRun
      ? `Dry run: would create ${count('created')}, would update ${count('updated')}, ${count('unchanged')} unchanged.`
      : `Applied ${results.length} type(s): ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged.`;
  });
  return ExitCode.ok;
}
