export { FakeClock, InvalidPeriodError, RealClock, realClock } from './clock.ts';
export type { Clock, Ticker, Timer } from './clock.ts';
