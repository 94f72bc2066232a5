import { sql } from 'drizzle-orm';
import { rows, type Db } from '../../../platform/db/client.ts';
import type { Prunable } from '../../../platform/housekeeping.ts';

/**
 * How long an answer is kept under its request id (`provider_requests`, Hub88's `request_uuid`).
 * A provider resends a request within hours (Hub88 retries rollbacks longest, with backoff); after
 * this, a request id seen again is a new request, whose money calls are still applied once by their
 * transaction ids, which provider_transactions keeps for good.
 */
export const PROVIDER_REQUEST_RETENTION_DAYS = 30;
const BATCH = 5_000;

/** Housekeeping of `provider_requests` (docs/games.md, "Connecting a Hub88 operator account"). */
export class ProviderRequestPruner implements Prunable {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async prune(): Promise<number> {
    let total = 0;
    for (;;) {
      const gone = await rows<{ id: string }>(
        this.#db,
        sql`delete from provider_requests r using (
            select id from provider_requests
            where created_at < now() - make_interval(days => ${PROVIDER_REQUEST_RETENTION_DAYS})
            order by created_at limit ${BATCH}
          ) d where r.id = d.id returning r.id`,
      );
      total += gone.length;
      if (gone.length < BATCH) return total;
    }
  }
}
