import { Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { createLiquid } from './create-liquid';
import { sharedDateTimeFormatCount } from './date-filters';

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
});
