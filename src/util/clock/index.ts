// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export { FakeClock, InvalidPeriodError, RealClock, realClock } from './clock.ts';
export type { Clock, Ticker, Timer } from './clock.ts';
