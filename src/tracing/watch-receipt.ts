/**
 * When each watched object arrived (kubeloom; client-go has no tracing): the reflector notes the time
 * it read a watch event, and the event handler's span starts then rather than when the handler is
 * called, with an `informer` child span covering the time between (the DeltaFIFO and the shared
 * informer's processor queue). The note travels with the object itself, which the informer passes on
 * unchanged from the reflector to the handler, in a WeakMap: nothing to carry through the queues,
 * nothing left behind when the object is dropped.
 *
 * The reflector notes times only when a tracer provider is registered (one check per network chunk
 * of events), so an untraced program pays nothing. An object replaced on the way (an informer's
 * transform function) loses its note: its event span then starts at the handler call, as before.
 */
import { tracingEnabled } from './tracing.ts';

const receivedAt = new WeakMap<object, number>();

/**
 * Notes that the objects of `events` were read from a watch at `time` (milliseconds since the epoch,
 * on the reflector's clock); does nothing without a tracer provider.
 */
export function noteWatchEventsReceived(events: ReadonlyArray<{ readonly object: unknown }>, time: number): void {
  if (!tracingEnabled()) return;
  for (let i = 0; i < events.length; i++) {
    const o = events[i]!.object;
    if (typeof o === 'object' && o !== null) receivedAt.set(o, time);
  }
}

/** When `object` was read from a watch, if the reflector noted it. */
export function watchReceivedAt(object: object): number | undefined {
  return receivedAt.get(object);
}
