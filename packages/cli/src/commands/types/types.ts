import type { CreateContentTypeBody } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import { readDefinitions } from '../../io/read-definitions';
import type { SiteCommandDeps } from '../context';

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
 * `cms types apply <file-or-folder>`: creates each type that does not exist and PATCHes the
 * others, in file order (so referenced types can come first). Safe to run again.
 */
export async function typesApply({
  site,
  out,
  io,
  target,
}: SiteCommandDeps & { target: string }): Promise<number> {
  const definitions = await readDefinitions<CreateContentTypeBody>({
    fs: io.fs,
    cwd: io.cwd,
    target,
    key: 'types',
    idField: 'name',
  });
  const results: { name: string; action: string }[] = [];
  for (const definition of definitions) {
    const { action } = await site.types.apply(definition);
    results.push({ name: definition.name, action });
    out.note(`${action === 'created' ? 'created' : 'updated'} ${definition.name}`);
  }
  out.result({ ok: true, types: results }, () => {
    const created = results.filter((result) => result.action === 'created').length;
    return `Applied ${results.length} type(s): ${created} created, ${results.length - created} updated.`;
  });
  return ExitCode.ok;
}
