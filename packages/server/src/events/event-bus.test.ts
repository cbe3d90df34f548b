import { describe, expect, it } from 'vitest';
import { fixedClock } from '../shared/clock';
import { EventBus } from './event-bus';

function quietLog() {
  const errors: unknown[] = [];
  const log = { error: (obj: unknown) => errors.push(obj) } as never;
  return { log, errors };
}

describe('the event bus', () => {
  it('stamps id and time, and never lets a listener fail or slow the emitter', async () => {
    const { log, errors } = quietLog();
    const bus = new EventBus({ clock: fixedClock('2026-01-02T03:04:05.000Z'), log });
    const seen: string[] = [];
    let release: () => void = () => undefined;
    bus.on(() => {
      throw new Error('listener broke');
    });
    bus.on(() => new Promise<void>((resolve) => (release = resolve)).then(() => seen.push('slow')));
    bus.on((event) => seen.push(event.type));
    const event = bus.emit({ type: 'item.created', siteId: 'site:a', data: { id: 'post:x' } });
    // Emitting returned before any listener ran.
    expect(seen).toEqual([]);
    expect(event).toMatchObject({
      type: 'item.created',
      siteId: 'site:a',
      occurredAt: '2026-01-02T03:04:05.000Z',
    });
    expect(event!.id).toMatch(/^evt_/);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['item.created']);
    release();
    await bus.drain();
    expect(seen).toEqual(['item.created', 'slow']);
    expect(errors).toHaveLength(1);
  });

  it('answers null instead of throwing when the event cannot be made', () => {
    const { log, errors } = quietLog();
    const bus = new EventBus({
      clock: {
        now: () => {
          throw new Error('no clock');
        },
      },
      log,
    });
    expect(bus.emit({ type: 'build.started', siteId: 'site:a', data: {} })).toBeNull();
    expect(errors).toHaveLength(1);
  });
});
