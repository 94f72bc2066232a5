import type pg from 'pg';
import { connectSession } from './primary.ts';

/**
 * Lets exactly one process of several do a job (the draw scheduler): whoever holds the lock leads
 * until it releases it or its connection ends. `acquire` answers whether this process leads now,
 * taking the lock when it is free; a leader's call checks that its connection (and so its lock)
 * is still alive. Work done while leading must still be safe should two processes ever both
 * believe they lead (a connection lost in the middle of a tick): the lock saves the waste, the
 * database constraints keep it correct.
 */
export interface LeaderLock {
  acquire(): Promise<boolean>;
  release(): Promise<void>;
}

/** The embedded database belongs to one process, which therefore always leads. */
export const soleLeader: LeaderLock = { acquire: async () => true, release: async () => undefined };

/**
 * A PostgreSQL session-level advisory lock, held by a connection of its own (outside the pool,
 * so no query of the app ever runs on it and no pool turnover can drop it). The lock goes with
 * the connection: a process that dies, or whose connection breaks, leads no more.
 */
export class AdvisoryLeaderLock implements LeaderLock {
  readonly #connectionString: string;
  readonly #name: string;
  #client: pg.Client | undefined;
  #held = false;

  constructor(connectionString: string, name: string) {
    this.#connectionString = connectionString;
    this.#name = name;
  }

  async acquire(): Promise<boolean> {
    try {
      const client = await this.#connection();
      if (this.#held) {
        // A primary demoted under its session (a switchover) keeps the lock where no one looks.
        const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
        if (rows[0]?.standby !== true) return true;
        await this.release();
        return false;
      }
      const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [this.#name]);
      this.#held = rows[0]?.locked === true;
      return this.#held;
    } catch (error) {
      await this.release();
      throw error;
    }
  }

  async release(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#held = false;
    // Ending the session releases its advisory locks.
    await client?.end().catch(() => undefined);
  }

  async #connection(): Promise<pg.Client> {
    if (this.#client !== undefined) return this.#client;
    // On a formation, the primary's: the lock must be where every instance takes it (primary.ts).
    const client = await connectSession(this.#connectionString, `croupier leader: ${this.#name}`);
    // A broken connection has lost the lock: lead no more, connect again on the next call.
    const lost = () => {
      if (this.#client === client) {
        this.#client = undefined;
        this.#held = false;
      }
    };
    client.on('error', lost);
    client.on('end', lost);
    this.#client = client;
    return client;
  }
}
