import { describe, expect, it } from 'vitest';
import { databaseName } from './database-name';

describe('databaseName', () => {
  it('gives a valid Neo4j database name for any graph name', () => {
    for (const graph of [
      'platform',
      '7d0f6c1e-3b0a-4c51-9d7e-2f4e8f0a9b1c',
      'Site_A',
      '_',
      'x'.repeat(128),
    ]) {
      const name = databaseName(graph);
      expect(name).toMatch(/^[a-z][a-z0-9.-]{2,62}$/);
    }
    expect(databaseName('platform')).toMatch(/^trellis-platform-[0-9a-f]{8}$/);
  });

  it('keeps graphs that differ only in case or separators apart', () => {
    expect(databaseName('Site_A')).not.toBe(databaseName('site-a'));
    expect(databaseName('Site_A')).toBe(databaseName('Site_A'));
  });
});
