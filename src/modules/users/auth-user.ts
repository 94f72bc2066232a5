import { sql, type SQL } from 'drizzle-orm';
import type { AuthUser } from '../../platform/auth/identity.ts';

export interface AuthUserRow {
  user_id: string | number;
  user_name: string;
  user_email: string;
  user_ref: string | number | null;
  user_status: number;
  user_is_partner: boolean;
  user_two_factor_enabled: boolean;
  user_roles: string[];
  user_created_at: Date | string;
  user_updated_at: Date | string;
}

/** The select list of an AuthUser from `users u`, prefixed so it can sit beside other columns. */
export const authUserColumns: SQL = sql`u.id as user_id, u.name as user_name, u.email as user_email,
  u.ref as user_ref, u.status as user_status, u.is_partner as user_is_partner,
  (u.two_factor_secret is not null and u.two_factor_confirmed_at is not null) as user_two_factor_enabled,
  u.created_at as user_created_at, u.updated_at as user_updated_at,
  coalesce((select array_agg(r.name order by r.name) from role_user ru join roles r on r.id = ru.role_id
    where ru.user_id = u.id), '{}') as user_roles`;

export function toAuthUser(row: AuthUserRow): AuthUser {
  return {
    id: Number(row.user_id),
    name: row.user_name,
    email: row.user_email,
    ref: row.user_ref === null ? null : Number(row.user_ref),
    status: Number(row.user_status),
    isPartner: row.user_is_partner,
    twoFactorEnabled: row.user_two_factor_enabled,
    roles: row.user_roles,
    createdAt: new Date(row.user_created_at),
    updatedAt: new Date(row.user_updated_at),
  };
}
