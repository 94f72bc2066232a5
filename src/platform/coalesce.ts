/**
 * Requests that arrive while one is being worked on, taken together as the next batch ("smart
 * batching"): the first request of a quiet moment goes alone and at once, so nothing waits for a
 * timer, and under load each batch holds what queued during the one before. A database statement
 * per batch instead of per request saves a round trip and a commit a request.
 *
 * One batch runs at a time: a batch then holds what queued while the last one ran, so the busier
 * the caller, the fuller the batches (up to `maxItems`).
 */
export class Coalescer<I, O> {
  readonly #run: (items: I[]) => Promise<PromiseSettledResult<O>[]>;
  readonly #maxItems: number;
  readonly #queue: { item: I; resolve(value: O): void; reject(reason: unknown): void }[] = [];
  #running = false;

  /**
   * `run` answers one settled result per item, in the items' order: a batch may succeed for
   * some items and fail for others. `maxItems` bounds a batch.
   */
  constructor(run: (items: I[]) => Promise<PromiseSettledResult<O>[]>, options: { maxItems: number }) {
    if (!Number.isInteger(options.maxItems) || options.maxItems < 1) throw new Error('A batch holds at least one item.');
    this.#run = run;
    this.#maxItems = options.maxItems;
  }

  /** Runs `item` in the next batch; settles as its result does. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#maxItems);
        let results: PromiseSettledResult<O>[];
        try {
          results = await this.#run(batch.map((entry) => entry.item));
          if (results.length !== batch.length) throw new Error(`A batch of ${batch.length} answered ${results.length} results.`);
        } catch (error) {
          for (const entry of batch) entry.reject(error);
          continue;
        }
        batch.forEach((entry, index) => {
          const result = results[index]!;
          if (result.status === 'fulfilled') entry.resolve(result.value);
          else entry.reject(result.reason);
        });
      }
    } finally {
      this.#running = false;
    }
  }
}
