/** The adapters of one kind this instance knows (payment gateways, payout gateways, game providers), by code. */
export class Registry<T extends { readonly code: string }> {
  readonly #byCode = new Map<string, T>();

  constructor(items: Iterable<T> = []) {
    for (const item of items) this.register(item);
  }

  register(item: T): void {
    this.#byCode.set(item.code, item);
  }

  get(code: string): T | undefined {
    return this.#byCode.get(code);
  }

  codes(): string[] {
    return [...this.#byCode.keys()];
  }
}
