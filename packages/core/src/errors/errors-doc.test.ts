import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorRegistry } from './registry';

const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');

/** The rows `| \`code\` | status | meaning |` of docs/errors.md. */
function documentedCodes(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const match of doc.matchAll(/^\|\s*`([a-z0-9_]+)`\s*\|\s*(\d{3})\s*\|\s*\S.*\|\s*$/gm)) {
    rows.set(match[1] as string, Number(match[2]));
  }
  return rows;
}

describe('docs/errors.md', () => {
  it('lists every code of the registry with its status and a meaning', () => {
    const rows = documentedCodes();
    for (const [code, { status }] of Object.entries(errorRegistry)) {
      expect(rows.get(code), `docs/errors.md has no row for ${code}`).toBe(status);
    }
  });

  it('lists no code the registry does not have', () => {
    const codes = new Set(Object.keys(errorRegistry));
    for (const code of documentedCodes().keys()) expect(codes.has(code), code).toBe(true);
  });
});
