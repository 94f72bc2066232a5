import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolUsage } from '../db/client.ts';
import type { MoneyEvents } from './money.ts';

/** Seconds; from a cached read (well under a millisecond) to a slow admin export. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A label set's histogram child, looked up once per method, route and status rather than per request. */
type Observer = ReturnType<Histogram<'method' | 'route' | 'status'>['labels']>;

/**
 * One app's Prometheus registry (its own, not prom-client's global one, so several apps in one
 * process, as in the tests, never share or double-register a metric).
 */
export class Metrics implements MoneyEvents {
  readonly counting = true;
  readonly registry = new Registry();
  readonly #requests = new Histogram({
    name: 'croupier_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status: latency, and with _count the request rate.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #observers = new Map<string, Observer>();
  readonly #ledgerLines = new Counter({
    name: 'croupier_ledger_lines_total',
    help: 'Ledger lines committed by this instance, by type.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly #ledgerCents = new Counter({
    name: 'croupier_ledger_amount_cents_total',
    help: 'Absolute amount of the ledger lines committed by this instance, by type, in cents (the type says credit or debit).',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly #topupsPaid = new Counter({
    name: 'croupier_topups_paid_total',
    help: 'Top-ups that became paid on this instance, by how (webhook or admin).',
    labelNames: ['via'] as const,
    registers: [this.registry],
  });
  readonly #withdrawals = new Counter({
    name: 'croupier_withdrawals_total',
    help: 'Withdrawals that reached an outcome on this instance (requested, approved, rejected, paid, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(options: { pool?: PoolUsage } = {}) {
    collectDefaultMetrics({ register: this.registry });
    const pool = options.pool;
    if (pool !== undefined) {
      const gauge = (name: string, help: string, read: () => number) =>
        new Gauge({
          name,
          help,
          registers: [this.registry],
          collect() {
            this.set(read());
          },
        });
      gauge('croupier_db_pool_connections', 'PostgreSQL connections open in the pool (idle and in use).', () => pool.totalCount);
      gauge('croupier_db_pool_idle_connections', 'PostgreSQL connections open and idle in the pool.', () => pool.idleCount);
      gauge('croupier_db_pool_waiting_requests', 'Queries waiting for a PostgreSQL connection from the pool.', () => pool.waitingCount);
    }
  }

  /** One request answered; `route` is the route's pattern (never the raw URL, which carries tokens and ids). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let observer = this.#observers.get(key);
    if (observer === undefined) {
      observer = this.#requests.labels(method, route, String(status));
      this.#observers.set(key, observer);
    }
    observer.observe(seconds);
  }

  ledgerLine(type: string, cents: bigint): void {
    this.ledgerLines(type, 1, cents);
  }

  ledgerLines(type: string, count: number, cents: bigint): void {
    if (count === 0) return;
    this.#ledgerLines.inc({ type }, count);
    this.#ledgerCents.inc({ type }, Number(cents < 0n ? -cents : cents));
  }

  topupPaid(via: string): void {
    this.#topupsPaid.inc({ via });
  }

  withdrawal(outcome: string): void {
    this.#withdrawals.inc({ outcome });
  }
}
