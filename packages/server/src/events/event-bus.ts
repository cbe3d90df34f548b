import { randomUUID } from 'node:crypto';
import { type EventType, sortableId, type TrellisEvent } from '@trelliscms/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../shared/clock';

/** What a module says happened: the bus stamps the id and the time. */
export interface EventInput {
  type: EventType;
  siteId: string;
  data: Record<string, unknown>;
}

/** Reacts to events (webhook queueing, notifications, review staleness); may be async. */
export type EventListener = (event: TrellisEvent) => unknown;

/** What an emitting module holds: the emit half of the bus (optional, so tests and tools can leave it out). */
export interface EventSink {
  emit(input: EventInput): TrellisEvent | null;
}

/** A new event id: sortable by time, `evt_` first. */
export function newEventId(now: Date): string {
  return sortableId('evt_', now, randomUUID().slice(0, 8));
}

/**
 * The server's one event stream (docs/events.md): modules that own an action `emit` what
 * happened; listeners (webhook queueing, notifications, review staleness) react. Emitting
 * never throws and never waits: listeners run after the current task, each on its own, and a
 * failing listener is logged and forgotten, so an event can never fail or slow the action that
 * emitted it. `drain()` waits for the listeners in flight (closing the app, tests).
 */
export class EventBus implements EventSink {
  private readonly listeners = new Set<EventListener>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly options: { clock: Clock; log: FastifyBaseLogger }) {}

  /** Adds a listener; returns how to remove it. */
  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(input: EventInput): TrellisEvent | null {
    try {
      const now = this.options.clock.now();
      const event: TrellisEvent = {
        id: newEventId(now),
        type: input.type,
        siteId: input.siteId,
        occurredAt: now.toISOString(),
        data: input.data,
      };
      for (const listener of this.listeners) {
        const task = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => listener(event))
          .catch((error: unknown) =>
            this.options.log.error(
              { err: error, eventId: event.id, type: event.type },
              'event listener failed',
            ),
          );
        this.inFlight.add(task);
        void task.finally(() => this.inFlight.delete(task));
      }
      return event;
    } catch (error) {
      this.options.log.error({ err: error, type: input.type }, 'could not emit an event');
      return null;
    }
  }

  /** Waits until no listener is running (including those started by listeners meanwhile). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
