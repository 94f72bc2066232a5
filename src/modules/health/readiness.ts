import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { listFunctions } from '../../platform/db/functions.ts';
import { listMigrations, pendingMigrations } from '../../platform/db/migrate.ts';
import { redisAnswers } from '../../platform/redis.ts';

/** Whether the database holds the schema this code expects (docs/api.md section 11). */
export class Readiness {
  readonly #db: Db;
  readonly #redis: AppContext['redis'];
  // The migrations and function files this code needs, read once: the probe itself only asks the database.
  readonly #migrations = listMigrations().map((migration) => migration.name);
  readonly #functions = listFunctions().map((file) => file.name);

  constructor(ctx: AppContext) {
    this.#db = ctx.db;
    this.#redis = ctx.redis;
  }

  /** Whether Redis answers when sessions live there (true without REDIS_URL). */
  async redisAnswers(): Promise<boolean> {
    return this.#redis === undefined || redisAnswers(this.#redis);
  }

  /** The migrations and function files not applied yet; throws when the database does not answer. */
  pending(): Promise<string[]> {
    return pendingMigrations(this.#db, this.#migrations, this.#functions);
  }
}
