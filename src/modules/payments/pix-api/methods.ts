import { eq, inArray } from 'drizzle-orm';
import type { InvalidationBus } from '../../../platform/cache/invalidation.ts';
import type { Keyring } from '../../../platform/crypto.ts';
import type { Db } from '../../../platform/db/client.ts';
import { paymentMethods } from '../tables.ts';
import { PixApiClient } from './client.ts';
import { checkPixConfig, isPixGateway, PIX_GATEWAYS, type PixApiConfig, type PixGateway } from './config.ts';
import { openSecrets } from './secrets.ts';

/** Announced when a payment method changes: every instance drops the clients it built for it. */
export const PAYMENT_METHODS_TOPIC = 'payments:methods';
/** Even unannounced, a method's row is read again this often (a change made by SQL, a lost message); a changed row rebuilds its client. */
const MAX_AGE_MS = 60_000;

/** A payment method whose gateway speaks API Pix, with its client. */
export interface PixMethod {
  id: number;
  code: string;
  gateway: PixGateway;
  /** 1 enabled, 0 disabled: a disabled method takes no new top-ups, but its payments are still received and reconciled. */
  status: number;
  config: PixApiConfig;
  client: PixApiClient;
}

interface Entry {
  method: PixMethod | undefined;
  at: number;
  /** The row it was built from, as read: an unchanged row keeps its client. */
  row: string;
}

const selection = {
  id: paymentMethods.id,
  code: paymentMethods.code,
  gateway: paymentMethods.gateway,
  status: paymentMethods.status,
  config: paymentMethods.config,
  configSecrets: paymentMethods.configSecrets,
  updatedAt: paymentMethods.updatedAt,
};

/**
 * The API Pix methods and their clients, built from the stored configuration (secrets opened with
 * the app key) once per change: a client keeps its token and its TLS connections between calls.
 * A stored configuration that no longer passes (its certificate expired) gives no method; the
 * caller says what that means (a 502, a skipped reconciliation) and the log says why.
 */
export class PixMethods {
  readonly #db: Db;
  readonly #keys: Keyring;
  readonly #timeoutMs: number | undefined;
  readonly #maxAgeMs: number;
  readonly #byId = new Map<number, Entry>();
  readonly #idByCode = new Map<string, number>();
  readonly #unsubscribe: (() => void) | undefined;
  readonly #bus: InvalidationBus | undefined;
  readonly #onUnusable: (method: { id: number; code: string }, problems: Record<string, string[]>) => void;

  constructor(
    db: Db,
    keys: Keyring,
    options: {
      bus?: InvalidationBus;
      timeoutMs?: number;
      /** How long a row is trusted before it is read again (MAX_AGE_MS; tests shorten it). */
      maxAgeMs?: number;
      onUnusable?: (method: { id: number; code: string }, problems: Record<string, string[]>) => void;
    } = {},
  ) {
    this.#db = db;
    this.#keys = keys;
    this.#timeoutMs = options.timeoutMs;
    this.#maxAgeMs = options.maxAgeMs ?? MAX_AGE_MS;
    this.#bus = options.bus;
    this.#onUnusable = options.onUnusable ?? (() => undefined);
    this.#unsubscribe = options.bus?.subscribe(PAYMENT_METHODS_TOPIC, () => this.forget());
  }

  /** The API Pix method of that id; undefined for none, another gateway, or a configuration that no longer works. */
  async byId(id: number): Promise<PixMethod | undefined> {
    const kept = this.#fresh(id);
    if (kept !== undefined) return kept.method;
    const [row] = await this.#db.select(selection).from(paymentMethods).where(eq(paymentMethods.id, id));
    return this.#keep(id, row);
  }

  /** By code (the notification URL names the method by its code). */
  async byCode(code: string): Promise<PixMethod | undefined> {
    const id = this.#idByCode.get(code);
    if (id !== undefined) {
      const kept = this.#fresh(id);
      if (kept !== undefined) return kept.method;
    }
    const [row] = await this.#db.select(selection).from(paymentMethods).where(eq(paymentMethods.code, code));
    if (row === undefined) return undefined;
    this.#idByCode.set(code, row.id);
    return this.#keep(row.id, row);
  }

  /** Every API Pix method whose configuration works, enabled or not (payments to a disabled one are still ours). */
  async all(): Promise<PixMethod[]> {
    const found = await this.#db
      .select(selection)
      .from(paymentMethods)
      .where(inArray(paymentMethods.gateway, [...PIX_GATEWAYS]))
      .orderBy(paymentMethods.id);
    return found.flatMap((row) => this.#keep(row.id, row) ?? []);
  }

  /** Drops every client (a method changed here or on another instance). */
  forget(): void {
    for (const entry of this.#byId.values()) entry.method?.client.close();
    this.#byId.clear();
    this.#idByCode.clear();
  }

  close(): void {
    this.#unsubscribe?.();
    this.forget();
  }

  /** The kept entry if it is recent enough to use without reading its row again. */
  #fresh(id: number): Entry | undefined {
    const entry = this.#byId.get(id);
    if (entry === undefined) return undefined;
    if (Date.now() - entry.at < this.#maxAgeMs && (this.#bus === undefined || this.#bus.live)) return entry;
    return undefined;
  }

  /**
   * Keeps what the row read now gives. A row as it was when its client was built keeps that
   * client, its token and its connections (calls in flight on it go on); only a changed or gone
   * row closes it. Concurrent callers that read the same row thus share one client, instead of
   * each building one (and fetching a token) and leaving the others' connections open.
   */
  #keep(id: number, row: RowOf | undefined): PixMethod | undefined {
    const read = row === undefined ? '' : JSON.stringify([row.code, row.gateway, row.status, row.config, row.configSecrets, row.updatedAt]);
    const kept = this.#byId.get(id);
    if (kept !== undefined && kept.row === read) {
      kept.at = Date.now();
      return kept.method;
    }
    kept?.method?.client.close();
    const method = row === undefined ? undefined : this.#build(row);
    this.#byId.set(id, { method, at: Date.now(), row: read });
    return method;
  }

  #build(row: RowOf): PixMethod | undefined {
    if (!isPixGateway(row.gateway)) return undefined;
    const checked = checkPixConfig(row.gateway, row.config, openSecrets(this.#keys, row.configSecrets), new Date());
    if ('errors' in checked) {
      this.#onUnusable({ id: row.id, code: row.code }, checked.errors);
      return undefined;
    }
    const client = new PixApiClient(checked.config, { timeoutMs: this.#timeoutMs });
    return { id: row.id, code: row.code, gateway: row.gateway, status: row.status, config: checked.config, client };
  }
}

type RowOf = {
  id: number;
  code: string;
  gateway: string;
  status: number;
  config: Record<string, unknown>;
  configSecrets: Record<string, string>;
  updatedAt: Date;
};
