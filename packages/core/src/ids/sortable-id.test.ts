import { describe, expect, it } from 'vitest';
import { sortableId } from './sortable-id';

describe('sortableId', () => {
  it('stamps the UTC time to the millisecond, then the random part', () => {
    expect(sortableId('b', new Date('2026-11-24T03:04:05.678Z'), 'abc123')).toBe('b20261124030405678-abc123');
  });

  it('sorts ids of one prefix by the time they were made', () => {
    const times = ['2026-01-02T00:00:00.000Z', '2025-12-31T23:59:59.999Z', '2026-01-01T10:00:00.001Z'];
    const ids = times.map((time, i) => sortableId('deploy:', new Date(time), `r${9 - i}`));
    expect([...ids].sort()).toEqual([ids[1], ids[2], ids[0]]);
  });
});
