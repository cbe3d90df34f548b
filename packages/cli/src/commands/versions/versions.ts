import type { ItemVersion } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import { fullId } from '../content/content';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms versions list <type> <id>`: the item's recorded versions, newest first. */
export async function versionsList({
  site,
  out,
  type,
  id,
}: Deps & { type: string; id: string }): Promise<number> {
  const versions = await site.content.versions(type, fullId(type, id));
  out.result(versions, () =>
    table(
      versions.map((version) => ({ ...version, hash: version.hash.slice(0, 12) })),
      ['version', 'status', 'action', 'actor', 'at', 'hash'],
    ),
  );
  return ExitCode.ok;
}

/** `cms versions show <type> <id> <version>`: one recorded version with its fields. */
export async function versionsShow({
  site,
  out,
  type,
  id,
  version,
}: Deps & { type: string; id: string; version: number }): Promise<number> {
  const recorded = await site.content.version(type, fullId(type, id), version);
  out.result(recorded, () => [
    `${recorded.itemId} version ${recorded.version} (${recorded.status}, ${recorded.action} by ${recorded.actor} at ${recorded.at})`,
    JSON.stringify(recorded.fields, null, 2),
  ]);
  return ExitCode.ok;
}

/** The field changes that make `current` equal `target`: changed and added ones, and removed ones as null. */
export function fieldsToRestore(
  current: Record<string, unknown>,
  target: Record<string, unknown>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(target)) {
    if (JSON.stringify(current[name]) !== JSON.stringify(value)) patch[name] = value;
  }
  for (const name of Object.keys(current)) if (!(name in target)) patch[name] = null;
  return patch;
}

/**
 * `cms versions restore <type> <id> <version> [--dry-run]`: writes the fields of an earlier
 * version as a new version (PATCH with the changed fields; fields it lacked are cleared),
 * guarded by the current version. The body (blocks) is not restored. Not published: run cms
 * publish after.
 */
export async function versionsRestore({
  site,
  out,
  type,
  id,
  version,
  dryRun,
}: Deps & { type: string; id: string; version: number; dryRun: boolean }): Promise<number> {
  const itemId = fullId(type, id);
  const [target, history] = await Promise.all([
    site.content.version(type, itemId, version),
    site.content.versions(type, itemId),
  ]);
  const head: ItemVersion | undefined = history[0];
  const current = head ? head.fields : (await site.content.get(type, itemId)).fields;
  const patch = fieldsToRestore(current, target.fields);
  const names = Object.keys(patch);
  if (names.length === 0) {
    out.result(
      { ok: true, itemId, restored: version, changed: [], unchanged: true },
      () => `${itemId} already has the fields of version ${version}; nothing to restore.`,
    );
    return ExitCode.ok;
  }
  if (dryRun) {
    out.result({ ok: true, dryRun: true, itemId, restored: version, changed: names }, () => [
      `Would restore ${itemId} to the fields of version ${version}; would change: ${names.join(', ')}.`,
    ]);
    return ExitCode.ok;
  }
  const updated = await site.content.update(type, itemId, {
    fields: patch,
    ...(head ? { expectedVersion: head.version } : {}),
  });
  out.result({ ok: true, itemId, restored: version, changed: names, item: updated }, () => [
    `Restored ${itemId} to the fields of version ${version} (changed: ${names.join(', ')}).`,
    `Publish it with: cms content publish ${type} ${itemId} --env prod`,
  ]);
  return ExitCode.ok;
}
