import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import type { SettingName, StoredSettings } from './definitions.ts';
import { currentSettings, insertSettingsVersion, type SettingsVersion } from './repository.ts';

/** The settings operators read and replace (docs/api.md section 10); the money rules read them through repository.ts. */
export class SettingsService {
  readonly #db: Db;

  constructor(ctx: AppContext) {
    this.#db = ctx.db;
  }

  current(name: SettingName): Promise<SettingsVersion> {
    return currentSettings(this.#db, name);
  }

  /** Stores `value` as the next version, in the operator's logged transaction. */
  replace(entry: OperationEntry, name: SettingName, value: StoredSettings): Promise<SettingsVersion> {
    return loggedTransaction(this.#db, entry, (tx) => insertSettingsVersion(tx, name, value, entry.userId));
  }
}
