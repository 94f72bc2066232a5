/** What time it is, as a service sees it: the system clock, or a clock a test sets by hand. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
