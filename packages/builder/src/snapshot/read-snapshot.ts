import { readFile } from 'node:fs/promises';
import { TrellisError } from '@trelliscms/core';
import type { Snapshot } from './types';

/** True for a value shaped like a site snapshot (`format: 'trellis-snapshot'`). */
export function isSnapshot(value: unknown): value is Snapshot {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { format?: unknown }).format === 'trellis-snapshot'
  );
}

/**
 * Checks the members a build relies on and fills optional arrays; throws `invalid_snapshot`
 * (400) naming the first problem.
 */
export function assertSnapshot(value: unknown): Snapshot {
  const fail = (detail: string) => TrellisError.of('invalid_snapshot', { detail });
  if (!isSnapshot(value)) throw fail('`format` must be "trellis-snapshot"');
  if (value.version !== 1) throw fail(`version ${String(value.version)} is not supported (expected 1)`);
  if (typeof value.site !== 'object' || value.site === null) throw fail('`site` must be an object');
  for (const key of ['types', 'items', 'templates'] as const) {
    if (!Array.isArray(value[key])) throw fail(`\`${key}\` must be an array`);
  }
  value.items.forEach((item, index) => {
    if (
      typeof item?.id !== 'string' ||
      typeof item.type !== 'string' ||
      typeof item.fields !== 'object' ||
      item.fields === null
    ) {
      throw fail(`items[${index}] needs string \`id\` and \`type\` and an object \`fields\``);
    }
  });
  value.templates.forEach((template, index) => {
    if (typeof template?.name !== 'string' || typeof template.content !== 'string') {
      throw fail(`templates[${index}] needs string \`name\` and \`content\``);
    }
  });
  if (value.queries !== undefined) {
    if (!Array.isArray(value.queries)) throw fail('`queries` must be an array');
    value.queries.forEach((saved, index) => {
      if (typeof saved?.name !== 'string' || typeof saved.query !== 'object' || saved.query === null) {
        throw fail(`queries[${index}] needs a string \`name\` and an object \`query\``);
      }
    });
  }
  return { ...value, edges: Array.isArray(value.edges) ? value.edges : [] };
}

/** Reads and checks a snapshot file. */
export async function readSnapshotFile(path: string): Promise<Snapshot> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw TrellisError.of('invalid_snapshot', { detail: `${path}: ${(error as Error).message}` });
  }
  return assertSnapshot(parsed);
}
