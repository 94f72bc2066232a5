/**
 * What modules tell the metrics about money, after the change committed (a rolled-back
 * transaction must never move a counter). The platform owns the interface so that it never
 * imports a module; app.ts hands modules the real one, or `noMoneyEvents` when metrics are off.
 *
 * Every ledger line a serving instance commits is reported, whichever type (test/platform/
 * metrics.test.ts). Lines written by a command (`croupier seed:demo`'s funding) are not: the
 * command's process has no registry and no `/metrics`, and counters are per serving instance.
 */
export interface MoneyEvents {
  /** Whether anything is counted: a report that needs a read of its own can skip it when not. */
  readonly counting: boolean;
  /** One ledger line of `type` (its module's name for it), `cents` signed as written. */
  ledgerLine(type: string, cents: bigint): void;
  /** Several lines of one type at once (a draw's settlement): `count` lines summing to `cents`. */
  ledgerLines(type: string, count: number, cents: bigint): void;
  /** A top-up became paid, by `via` (webhook or admin). */
  topupPaid(via: string): void;
  /** A withdrawal reached `outcome` (requested, approved, rejected, paid, failed, …). */
  withdrawal(outcome: string): void;
}

export const noMoneyEvents: MoneyEvents = {
  counting: false,
  ledgerLine: () => undefined,
  ledgerLines: () => undefined,
  topupPaid: () => undefined,
  withdrawal: () => undefined,
};
