import { Liquid } from 'liquidjs';
import { describe, expect, it, vi } from 'vitest';
import { prng, testSeed } from '../../test/seed';
import { createLiquid } from './create-liquid';
import { sharedDateTimeFormatCount } from './date-filters';
import { fastDate } from './date-format';

const formats =
  "{{ d | date: '%B %b %A %a %Y-%m-%d %H:%M' }}|{{ d | date_to_long_string }}|{{ d | date_to_string }}|{{ d | date_to_rfc822 }}";

function ours(template: string, scope: Record<string, unknown>): string {
  const { liquid } = createLiquid({ templates: new Map(), urls: { publicUrl: null } });
  return liquid.parseAndRenderSync(template, scope);
}

describe('date filters with shared Intl formatters', () => {
  it('print what liquidjs prints, for every month and weekday', () => {
    // liquidjs's own filters, configured like ours (UTC, escaped output)
    const plain = new Liquid({ timezoneOffset: 0, outputEscape: 'escape' });
    for (let month = 0; month < 12; month++) {
      for (const day of [1, 2, 3, 4, 5, 6, 7]) {
        const d = new Date(Date.UTC(2026, month, day, 13, 5)).toISOString();
        expect(ours(formats, { d })).toBe(plain.parseAndRenderSync(formats, { d }));
      }
    }
    expect(ours("{{ d | date: '%B %A' }}", { d: '2026-03-02T00:00:00Z' })).toBe('March Monday');
    // one formatter per locale and options, not one per call
    expect(sharedDateTimeFormatCount()).toBeLessThan(10);
  });

  it('leave Intl.DateTimeFormat as it was, also when a render fails', () => {
    const native = Intl.DateTimeFormat;
    ours("{{ d | date: '%B' }}", { d: '2026-01-05T10:00:00Z' });
    expect(Intl.DateTimeFormat).toBe(native);
    const { liquid } = createLiquid({
      templates: new Map(),
      urls: { publicUrl: null },
      limits: { memoryBytes: 10 },
    });
    expect(() =>
      liquid.parseAndRenderSync("{{ d | date: '%B %B %B %B %B %B %B %B' }}", { d: '2026-01-05T10:00:00Z' }),
    ).toThrow(/memory/i);
    expect(Intl.DateTimeFormat).toBe(native);
    expect(new Intl.DateTimeFormat('en-US', { month: 'long' })).not.toBe(
      new Intl.DateTimeFormat('en-US', { month: 'long' }),
    );
  });

  it('remember a printed date by value, format and offset, never now', () => {
    const d = '2026-03-02T23:30:00Z';
    expect(ours("{{ d | date: '%Y' }} {{ d | date: '%m' }} {{ d | date: '%Y' }}", { d })).toBe(
      '2026 03 2026',
    );
    expect(ours("{{ d | date: '%d %H' }}|{{ d | date: '%d %H', 60 }}|{{ d | date: '%d %H' }}", { d })).toBe(
      '02 23|02 22|02 23',
    );
    expect(ours("{{ n | date: '%Y-%m-%d' }} {{ s | date: '%Y-%m-%d' }}", { n: 0, s: '0' })).toBe(
      '1970-01-01 1970-01-01',
    );
    const year = String(new Date().getUTCFullYear());
    expect(ours("{{ 'now' | date: '%Y' }}", {})).toBe(year);
    const { liquid } = createLiquid({ templates: new Map(), urls: { publicUrl: null } });
    const first = liquid.parseAndRenderSync("{{ 'now' | date: '%s%L' }}", {});
    const later = () => liquid.parseAndRenderSync("{{ 'now' | date: '%s%L' }}", {});
    const start = Date.now();
    while (Date.now() - start < 5) {
      // let the clock move
    }
    expect(later()).not.toBe(first);
  });

  it('count remembered dates against the memory limit', () => {
    const { liquid } = createLiquid({
      templates: new Map(),
      urls: { publicUrl: null },
      limits: { memoryBytes: 2000 },
    });
    const d = '2026-01-05T10:00:00Z';
    expect(liquid.parseAndRenderSync("{{ d | date: '%B %d, %Y' }}", { d })).toBe('January 05, 2026');
    const many = "{% for i in (1..400) %}{% assign x = d | date: '%B %d, %Y' %}{% endfor %}{{ x }}";
    expect(() => liquid.parseAndRenderSync(many, { d })).toThrow(/memory/i);
  });

  it('print ISO UTC dates as liquidjs does on the fast path, and leave other formats to it', () => {
    const random = prng(testSeed('date fast path', 20261126));
    const plain = new Liquid({ timezoneOffset: 0, outputEscape: 'escape' });
    const pieces = [
      '%Y',
      '%m',
      '%d',
      '%e',
      '%H',
      '%M',
      '%S',
      '%y',
      '%B',
      '%b',
      '%A',
      '%a',
      '%%',
      '%-d',
      '%-m',
      '%-H',
      '%-e',
      '%-B',
      '-',
      ', ',
      ' ',
      'T',
      ':',
      '年',
      '%',
      '%j',
      '%_d',
      '%3N',
      '%^B',
      '%Ey',
      '%q',
      '%z',
      '%s',
    ];
    const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)] as T;
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    const { liquid } = createLiquid({ templates: new Map(), urls: { publicUrl: null } });
    const shared = new Map<string, Intl.DateTimeFormat>();
    const env = {
      locale: 'en-US',
      dateTimeFormat: (l: string, o: Intl.DateTimeFormatOptions) => {
        const key = `${l} ${JSON.stringify(o)}`;
        const known = shared.get(key) ?? new Intl.DateTimeFormat(l, o);
        shared.set(key, known);
        return known;
      },
    };
    let fast = 0;
    for (let i = 0; i < 2000; i++) {
      const ms = random() < 0.5 ? `.${pad(Math.floor(random() * 1000), 3)}` : '';
      const d = `${pad(Math.floor(random() * 10000), 4)}-${pad(1 + Math.floor(random() * 12), 2)}-${pad(
        1 + Math.floor(random() * 31),
        2,
      )}T${pad(Math.floor(random() * 24), 2)}:${pad(Math.floor(random() * 60), 2)}:${pad(Math.floor(random() * 60), 2)}${ms}Z`;
      const format = Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(pieces)).join('');
      const template = `{{ d | date: f }}`;
      const expected = plain.parseAndRenderSync(template, { d, f: format });
      expect(liquid.parseAndRenderSync(template, { d, f: format }), `${d} ${format}`).toBe(expected);
      const given = fastDate(d, format, env);
      if (given !== undefined) {
        expect(given, `${d} ${format}`).toBe(expected);
        fast += 1;
      }
    }
    // the fast path is taken (unless this process's time zone is not at UTC)
    if (new Date('2026-01-05T10:00:00Z').getTimezoneOffset() === 0) {
      expect(fast).toBeGreaterThan(300);
      expect(fastDate('2026-01-05T10:00:00.5Z', '%B %-d, %Y %H:%M:%S %a %%', env)).toBe(
        'January 5, 2026 10:00:00 Mon %',
      );
    }
    expect(fastDate('2026-01-05T10:00:00Z', '%j', env)).toBeUndefined();
    expect(fastDate('2026-01-05T10:00:00Z', '%_d', env)).toBeUndefined();
    expect(fastDate('2026-01-05 10:00', '%Y', env)).toBeUndefined();
  });

  it('print month and weekday names as liquidjs does in locales of other calendars, each name asked of Intl once', () => {
    // Persian and Hebrew months do not follow the Gregorian ones: their names cannot be kept by
    // the UTC month (Buddhist months do, but are left to Intl too); weekdays can, in any calendar
    const locales = ['en-US', 'de-DE', 'ja-JP', 'ar-SA', 'th-TH', 'fa-IR', 'he-IL-u-ca-hebrew'];
    if (new Date('2026-01-05T10:00:00Z').getTimezoneOffset() !== 0) return;
    for (const locale of locales) {
      const plain = new Liquid({ timezoneOffset: 0, locale });
      let asked = 0;
      const formatters = new Map<string, Intl.DateTimeFormat>();
      const env = {
        locale,
        dateTimeFormat: (l: string, o: Intl.DateTimeFormatOptions) => {
          asked++;
          const key = `${l} ${JSON.stringify(o)}`;
          const known = formatters.get(key) ?? new Intl.DateTimeFormat(l, o);
          formatters.set(key, known);
          return known;
        },
      };
      // every third day of a year (Persian months turn on the 20th–23rd), and days of other centuries
      const days: string[] = [];
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 3 * 86_400_000)
        days.push(new Date(ms).toISOString());
      for (const year of [1970, 1999, 2100, 2400])
        days.push(`${year}-03-25T12:00:00Z`, `${year}-10-01T00:00:00Z`);
      for (const d of days) {
        const f = '%B|%b|%A|%a|%-d';
        expect(fastDate(d, f, env), `${locale} ${d}`).toBe(
          plain.parseAndRenderSync('{{ d | date: f }}', { d, f }),
        );
      }
      const calendar = new Intl.DateTimeFormat(locale, { month: 'long' }).resolvedOptions().calendar;
      if (calendar === 'gregory') expect(asked, locale).toBeLessThan(100);
      else expect(asked, locale).toBeGreaterThan(days.length);
    }
  });

  it('charge the memory limit on the fast path as liquidjs does', () => {
    for (const memoryBytes of [10, 25, 30, 40, 60, 100]) {
      const { liquid } = createLiquid({
        templates: new Map(),
        urls: { publicUrl: null },
        limits: { memoryBytes },
      });
      const plain = new Liquid({ timezoneOffset: 0, outputEscape: 'escape', memoryLimit: memoryBytes });
      for (const f of ['%Y-%m-%d', '%B %-d, %Y', '%e %a']) {
        const template = `{{ d | date: f }}`;
        const scope = { d: '2026-01-05T10:00:00Z', f };
        const outcome = (render: () => string) => {
          try {
            return render();
          } catch (error) {
            return `error: ${(error as Error).message.split(',')[0]}`;
          }
        };
        expect(
          outcome(() => liquid.parseAndRenderSync(template, scope)),
          `${memoryBytes} ${f}`,
        ).toBe(outcome(() => plain.parseAndRenderSync(template, scope)));
      }
    }
  });

  it('print what liquidjs prints for generated dates and formats, in several time zones, memory accounted alike', async () => {
    const next = prng(testSeed('date-filters.test.ts', 20));
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const two = (n: number) => String(n).padStart(2, '0');
    const dateText = (): string => {
      const year = pick([1969, 1970, 1999, 2000, 2024, 2026, 2038, 99, 999, 10000, -44]);
      const ms = Date.UTC(2000, Math.floor(next() * 12), 1 + Math.floor(next() * 31), 0, 0, 0);
      const base = new Date(ms);
      base.setUTCFullYear(year);
      base.setUTCHours(Math.floor(next() * 24), Math.floor(next() * 60), Math.floor(next() * 60));
      const iso = base.toISOString();
      const day = iso.slice(0, iso.indexOf('T'));
      const time = `${two(base.getUTCHours())}:${two(base.getUTCMinutes())}`;
      return pick([
        iso,
        `${day}T${time}:00Z`,
        `${day}T${time}:00+05:30`,
        `${day}T${time}:00-08:00`,
        `${day}T${time}`,
        day,
        base.toUTCString(),
        `${day} ${time}`,
        String(Math.floor(ms / 1000)),
        'not a date',
        '',
        '2026-02-30',
      ]);
    };
    const formats = [
      '%Y-%m-%d',
      '%B %d, %Y',
      '%b %e %y %H:%M:%S',
      '%h %%Y 100%',
      '%d.%m.%Y %H:%M',
      '%B %b %h',
      '%Y%m%d%H%M%S',
      '%A %j %U %I%p',
      '%-d %_m',
      '%10Y',
      '%Ey',
      '%\n%Y',
      '%',
      'plain text',
      '',
    ];
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'];
    const before = process.env.TZ;
    let compared = 0;
    try {
      for (const zone of zones) {
        process.env.TZ = zone;
        // a process has one time zone: the filters' module (its shared Intl formatters) loaded anew in each
        vi.resetModules();
        const { createLiquid: createInZone } = await import('./create-liquid');
        // liquidjs's own filter (a fresh Intl formatter at each call), configured like ours
        const plain = new Liquid({ timezoneOffset: 0, outputEscape: 'escape' });
        const { liquid } = createInZone({ templates: new Map(), urls: { publicUrl: null } });
        for (let i = 0; i < 300; i++) {
          const d = dateText();
          const template = `{{ d | date: f }}`;
          const f = pick(formats);
          const scope = { d, f };
          expect(liquid.parseAndRenderSync(template, scope), JSON.stringify({ zone, d, f })).toBe(
            plain.parseAndRenderSync(template, scope),
          );
          compared++;
        }
        // the memory the filter accounts: the same limit fails both or neither
        for (const [d, f] of [
          ['2026-01-05T10:00:00Z', '%B %e, %Y'],
          ['2026-11-25T07:08:09Z', '%Y-%m-%d %H:%M:%S'],
          ['0999-03-04', '%Y %y %b'],
        ] as const) {
          for (let memoryLimit = 1; memoryLimit <= 60; memoryLimit++) {
            const render = (engine: Liquid) => {
              try {
                return engine.parseAndRenderSync('{{ d | date: f }}', { d, f });
              } catch (error) {
                return `failed: ${(error as Error).message.split(',')[0]}`;
              }
            };
            const ourEngine = createInZone({
              templates: new Map(),
              urls: { publicUrl: null },
              limits: { memoryBytes: memoryLimit },
            }).liquid;
            const theirs = new Liquid({ timezoneOffset: 0, outputEscape: 'escape', memoryLimit });
            expect(render(ourEngine), JSON.stringify({ zone, d, f, memoryLimit })).toBe(render(theirs));
          }
        }
      }
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
    expect(compared).toBe(zones.length * 300);
  });
});
