import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Regulation } from '../../config.ts';
import type { Db } from '../../platform/db/client.ts';
import { ValidationError } from '../../platform/errors.ts';
import { bonusRefusals } from './bonuses.ts';
import type { SettingName, StoredSettings } from './definitions.ts';
import { currentSettings, insertSettingsVersion, type SettingsVersion } from './repository.ts';

/** The settings operators read and replace (docs/api.md section 10); the money rules read them through repository.ts. */
export class SettingsService {
  readonly #db: Db;
  readonly #regulation: Regulation;

  constructor(ctx: AppContext) {
    this.#db = ctx.db;
    this.#regulation = ctx.config.regulation;
  }

  /** As it applies: under REGULATION=br with its bonuses at 0. */
  current(name: SettingName): Promise<SettingsVersion> {
    return currentSettings(this.#db, name, this.#regulation);
  }

  /**
   * Stores `value` as the next version, in the operator's logged transaction. Under
   * REGULATION=br a bonus other than 0 is a 422 on its field (bonuses.ts).
   */
  replace(entry: OperationEntry, name: SettingName, value: StoredSettings): Promise<SettingsVersion> {
    const refusals = bonusRefusals(name, value, this.#regulation);
    if (Object.keys(refusals).length > 0) throw new ValidationError(refusals);
    return loggedTransaction(this.#db, entry, (tx) => insertSettingsVersion(tx, name, value, entry.userId));
  }
}
