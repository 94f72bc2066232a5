import { and, eq, isNull, sql } from 'drizzle-orm';
import { randomAlphanumeric } from '../../platform/crypto.ts';
import { one, type Db } from '../../platform/db/client.ts';
import type { AuthUser } from '../../platform/auth/identity.ts';
import { authUserFields } from './auth-user.ts';
import { users, type UserRow } from './tables.ts';

export const USERS_EMAIL_UNIQUE = 'users_email_unique';

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email.toLowerCase()));
  return row;
}

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export async function findAuthUser(db: Db, id: number): Promise<AuthUser | undefined> {
  const [row] = await db.select(authUserFields).from(users).where(eq(users.id, id));
  return row;
}

export async function emailTaken(db: Db, email: string, exceptId?: number): Promise<boolean> {
  const row = await one<{ id: number }>(
    db,
    sql`select id from users where email = ${email.toLowerCase()} ${exceptId === undefined ? sql`` : sql`and id <> ${exceptId}`}`,
  );
  return row !== undefined;
}

export async function userExists(db: Db, id: number): Promise<boolean> {
  return (await one(db, sql`select 1 from users where id = ${id}`)) !== undefined;
}

export interface NewUser {
  name: string;
  email: string;
  passwordHash: string;
  ref: number | null;
  status?: number;
  isPartner?: boolean;
}

export async function insertUser(db: Db, user: NewUser): Promise<UserRow> {
  const [row] = await db
    .insert(users)
    .values({
      name: user.name,
      email: user.email.toLowerCase(),
      password: user.passwordHash,
      ref: user.ref,
      status: user.status ?? 1,
      isPartner: user.isPartner ?? false,
      rememberNonce: randomAlphanumeric(40),
    })
    .returning();
  return row!;
}

export async function updateUser(db: Db, id: number, patch: Partial<Omit<UserRow, 'id' | 'createdAt'>>): Promise<void> {
  await db
    .update(users)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(eq(users.id, id));
}

/**
 * Records `step` as the last accepted TOTP step unless an equal or later one was already used:
 * the database decides, so two requests with the same code cannot both win.
 */
export async function claimTotpStep(db: Db, id: number, step: number): Promise<boolean> {
  const row = await one(
    db,
    sql`update users set two_factor_last_step = ${step}
      where id = ${id} and (two_factor_last_step is null or two_factor_last_step < ${step})
      returning id`,
  );
  return row !== undefined;
}

/**
 * Sets `email_verified_at` the first time only, and only while the user's e-mail is still `email`
 * (the address the link was made for). Answers whether it changed.
 */
export async function markEmailVerified(db: Db, id: number, email: string): Promise<boolean> {
  const changed = await db
    .update(users)
    .set({ emailVerifiedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(users.id, id), eq(users.email, email), isNull(users.emailVerifiedAt)))
    .returning({ id: users.id });
  return changed.length > 0;
}
