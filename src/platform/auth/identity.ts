import type { SQL } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Db } from '../db/client.ts';

/** The role that holds every permission, in code as well as in the seeded links. */
export const SUPER_ADMIN = 'super-admin';

/**
 * Where a player's identity stands (docs/api.md section 14): `unverified` until they submit one,
 * `pending` while a verifier or an operator decides, then `verified` or `rejected`. Under
 * REGULATION=br money and play wait for `verified` (the route guard's `verified` check).
 */
export const IDENTITY_STATUSES = ['unverified', 'pending', 'verified', 'rejected'] as const;
export type IdentityStatus = (typeof IDENTITY_STATUSES)[number];

/** The status as a response field, from the one declaration above. */
export function identityStatusSchema(description: string) {
  const [unverified, pending, verified, rejected] = IDENTITY_STATUSES;
  return Type.Union([Type.Literal(unverified), Type.Literal(pending), Type.Literal(verified), Type.Literal(rejected)], { description });
}

/** What the rest of a request knows about the signed-in user: no secrets, roles included. */
export interface AuthUser {
  id: number;
  name: string;
  email: string;
  ref: number | null;
  status: number;
  isPartner: boolean;
  twoFactorEnabled: boolean;
  /** When the user followed the link of the verification e-mail; null until then (the `verified` route check). */
  emailVerifiedAt: Date | null;
  /** The player's identity verification (REGULATION=br gates money and play on `verified`). */
  identityStatus: IdentityStatus;
  roles: string[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Who the users are, as the platform needs to know them (sessions, the route guard, remember-me
 * cookies, the admin convention). The users module implements it and app.ts hands it in, so
 * platform code never reads a feature's tables itself.
 */
export interface Identity {
  /**
   * SQL that yields the active user with id `userId` as one JSON value (null when there is none
   * or they are disabled): the session store embeds it, so a request loads its session and its
   * user in one round trip.
   */
  activeUserJson(userId: SQL): SQL;
  /** The AuthUser of a value `activeUserJson` produced. */
  fromJson(value: unknown): AuthUser;
  findActive(db: Db, userId: number): Promise<AuthUser | undefined>;
  /** Permission names the user holds through their roles. */
  permissionsOf(db: Db, userId: number): Promise<Set<string>>;
  /** The nonce mixed into remember-me cookies of an active user; replacing it voids them all. */
  rememberNonceOf(db: Db, userId: number): Promise<string | undefined>;
  cycleRememberNonce(db: Db, userId: number): Promise<void>;
}

export function isSuperAdmin(user: Pick<AuthUser, 'roles'>): boolean {
  return user.roles.includes(SUPER_ADMIN);
}
