/**
 * The WebSocket heartbeat of client-go's streaming connections (`tools/remotecommand/websocket.go`
 * heartbeat): a ping every period; a connection that answers no ping within the deadline is taken
 * for dead and dropped, so a peer that vanished without closing its TCP connection ends a session
 * with an error instead of leaving it hanging.
 */
import type WebSocket from 'ws';
import { realClock, type Clock } from '../clock/clock.ts';

/** Heartbeat settings of a streaming connection (exec, attach, port-forward): pings and how long to wait for a pong. */
export interface HeartbeatOptions {
  /** Time source (default: the real clock). */
  clock?: Clock;
  /** Ping period in ms (default 5,000: client-go's pingPeriod). */
  periodMs?: number;
  /** Silence after which the connection is dropped, in ms (default 61,000: 12 periods + 1 s, client-go's pingReadDeadline). */
  deadlineMs?: number;
}

/** client-go's pingPeriod. */
export const defaultPingPeriodMs = 5_000;
/** client-go's pingReadDeadline: twelve missed periods plus a second. */
export const defaultPingDeadlineMs = defaultPingPeriodMs * 12 + 1_000;

/**
 * Pings `socket` until it closes, and terminates it (close code 1006) when no pong arrived within
 * the deadline (data does not count, as the read deadline upstream is pushed by pongs only). Returns a function that stops the heartbeat.
 */
export function startHeartbeat(socket: WebSocket, options: HeartbeatOptions = {}): () => void {
  const clock = options.clock ?? realClock;
  const deadline = options.deadlineMs ?? defaultPingDeadlineMs;
  let last = clock.now();
  const alive = (): void => {
    last = clock.now();
  };
  socket.on('pong', alive);
  const ticker = clock.newTicker(options.periodMs ?? defaultPingPeriodMs, () => {
    if (clock.since(last) >= deadline) {
      stop();
      socket.terminate();
      return;
    }
    if (socket.readyState === socket.OPEN) socket.ping();
  });
  const stop = (): void => {
    ticker.stop();
    socket.off('pong', alive);
  };
  socket.once('close', stop);
  return stop;
}
