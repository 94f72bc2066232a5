import { transaction, type Db } from '../../platform/db/client.ts';
import { SUPER_ADMIN } from '../../platform/auth/identity.ts';
import { assignRole } from '../access/repository.ts';
import type { PasswordHasher } from '../../platform/auth/passwords.ts';
import { findUserByEmail, insertUser, updateUser } from './repository.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** `croupier admin:create`: a new super-admin, or an existing user promoted (password reset to P). */
export async function createOrPromoteAdmin(
  db: Db,
  hasher: PasswordHasher,
  input: { email: string; password: string; name?: string | undefined },
): Promise<number> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`"${input.email}" is not an e-mail address.`);
  if ([...input.password].length < 8) throw new UsageError('The password must be at least 8 characters.');
  const passwordHash = await hasher.hash(input.password);
  return transaction(db, async (tx) => {
    const existing = await findUserByEmail(tx, email);
    const id = existing?.id ?? (await insertUser(tx, { name: input.name ?? email.split('@')[0]!, email, passwordHash, ref: null })).id;
    if (existing !== undefined) {
      await updateUser(tx, id, { password: passwordHash, status: 1, ...(input.name === undefined ? {} : { name: input.name }) });
    }
    await assignRole(tx, id, SUPER_ADMIN);
    return id;
  });
}
