import type { SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';

/** The role that holds every permission, in code as well as in the seeded links. */
export const SUPER_ADMIN = 'super-admin';

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
