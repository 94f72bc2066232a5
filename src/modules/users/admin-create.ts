import { randomAlphanumeric } from '../../platform/crypto.ts';
import { transaction, type Db } from '../../platform/db/client.ts';
import { SUPER_ADMIN } from '../../platform/auth/identity.ts';
import { assignRole } from '../access/repository.ts';
import type { PasswordHasher } from '../../platform/auth/passwords.ts';
import { findUserByEmail, insertUser, updateUser } from './repository.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * `croupier admin:create`: a new super-admin, or an existing user promoted with the password P.
 * A promoted user's new password retires their remember-me cookies here, in the transaction; their
 * sessions (maybe in Redis) are ended by `endSessions` once it is committed, as after any
 * password reset: whoever held the old password keeps no way in.
 */
export async function createOrPromoteAdmin(
  db: Db,
  hasher: PasswordHasher,
  input: { email: string; password: string; name?: string | undefined },
): Promise<{ id: number; promoted: boolean }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`"${input.email}" is not an e-mail address.`);
  if ([...input.password].length < 8) throw new UsageError('The password must be at least 8 characters.');
  const passwordHash = await hasher.hash(input.password);
  return transaction(db, async (tx) => {
    const existing = await findUserByEmail(tx, email);
    const id = existing?.id ?? (await insertUser(tx, { name: input.name ?? email.split('@')[0]!, email, passwordHash, ref: null })).id;
    if (existing !== undefined) {
      await updateUser(tx, id, {
        password: passwordHash,
        status: 1,
        rememberNonce: randomAlphanumeric(40),
        ...(input.name === undefined ? {} : { name: input.name }),
      });
    }
    await assignRole(tx, id, SUPER_ADMIN);
    return { id, promoted: existing !== undefined };
  });
}
