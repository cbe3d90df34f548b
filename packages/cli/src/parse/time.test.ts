import { describe, expect, it } from 'vitest';
import { parseDuration, parseTime } from './time';

const now = new Date('2026-05-01T12:00:00.000Z');

describe('parseDuration', () => {
  it('reads units and compound durations', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1w')).toBe(604_800_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1D2H')).toBe(93_600_000);
    expect(parseDuration('0s')).toBe(0);
  });

  it('refuses anything else with a usage error', () => {
    for (const bad of ['', '10', 'm', '10x', '1.5h', '-2h', '10 m', '1h 30m', '99999999999999999w']) {
      expect(() => parseDuration(bad), bad).toThrow(expect.objectContaining({ name: 'UsageError' }));
    }
  });
});

describe('parseTime', () => {
  it('reads now and times relative to now', () => {
    expect(parseTime('now', now)).toBe('2026-05-01T12:00:00.000Z');
    expect(parseTime('NOW', now)).toBe('2026-05-01T12:00:00.000Z');
    expect(parseTime('+10m', now)).toBe('2026-05-01T12:10:00.000Z');
    expect(parseTime('-2h', now)).toBe('2026-05-01T10:00:00.000Z');
    expect(parseTime('+1d2h', now)).toBe('2026-05-02T14:00:00.000Z');
    expect(parseTime(' +30s ', now)).toBe('2026-05-01T12:00:30.000Z');
  });

  it('reads ISO date-times with a zone and answers them in UTC', () => {
    expect(parseTime('2026-05-01T09:00:00Z', now)).toBe('2026-05-01T09:00:00.000Z');
    expect(parseTime('2026-05-01T09:00Z', now)).toBe('2026-05-01T09:00:00.000Z');
    expect(parseTime('2026-05-01T09:00:00.25z', now)).toBe('2026-05-01T09:00:00.250Z');
    expect(parseTime('2026-05-01T11:00+02:00', now)).toBe('2026-05-01T09:00:00.000Z');
    expect(parseTime('2026-05-01T04:30:00-0430', now)).toBe('2026-05-01T09:00:00.000Z');
    expect(parseTime('2026-12-31 23:59:59Z', now)).toBe('2026-12-31T23:59:59.000Z');
    expect(parseTime('2028-02-29T00:00Z', now)).toBe('2028-02-29T00:00:00.000Z');
  });

  it('refuses times without a zone, impossible dates and other text', () => {
    for (const bad of [
      '2026-05-01T09:00:00',
      '2026-05-01',
      '2026-02-30T00:00Z',
      '2026-13-01T00:00Z',
      '2026-05-01T24:00Z',
      '2026-05-01T09:60Z',
      '2026-05-01T09:00+25:00',
      'tomorrow',
      '+',
      '+10',
      '10m',
      '',
    ]) {
      expect(() => parseTime(bad, now), bad).toThrow(expect.objectContaining({ name: 'UsageError' }));
    }
  });
});
