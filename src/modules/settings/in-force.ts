/**
 * Settings versions a hot path computes with, read once and kept until a money function finds
 * them replaced (it answers `stale`); then `replaced` drops them and the next `get` reads again.
 * The webhook and the withdrawal request keep one for the process: no settings read per call.
 */
export class InForce<T> {
  readonly #read: () => Promise<T>;
  #seen: Promise<T> | undefined;

  constructor(read: () => Promise<T>) {
    this.#read = read;
  }

  get(): Promise<T> {
    if (this.#seen === undefined) {
      const reading = this.#read();
      this.#seen = reading;
      // A failed read (the database was away) must not be what every later call sees.
      void reading.catch(() => this.replaced(reading));
    }
    return this.#seen;
  }

  /** Forgets what was seen, unless someone already replaced it with a newer read. */
  replaced(seen: Promise<T>): void {
    if (this.#seen === seen) this.#seen = undefined;
  }
}
