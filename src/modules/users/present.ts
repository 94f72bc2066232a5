import { Type } from 'typebox';
import type { Regulation } from '../../config.ts';
import { identityStatusSchema, type AuthUser } from '../../platform/auth/identity.ts';
import { timestamps } from '../../platform/http/record.ts';

/** The user record of docs/api.md section 5; the schema doubles as a guard against leaking fields. */
export const UserSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  ref: Type.Integer({ description: 'Referrer id, 0 when none.' }),
  roles: Type.Array(Type.String()),
  two_factor_enabled: Type.Boolean(),
  is_partner: Type.Boolean(),
  status: Type.Integer({ description: '1 active, 0 disabled.' }),
  email_verified_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the user followed the link of the verification e-mail; null until then.',
  }),
  identity_status: Type.Optional(
    identityStatusSchema('Only with REGULATION=br (docs/api.md section 14): unverified, pending, verified or rejected.'),
  ),
  ...timestamps,
});

/**
 * The record; `identity_status` only under REGULATION=br, so with `none` the record is exactly
 * the seed's (docs/api.md section 14).
 */
export function presentUser(user: AuthUser, regulation: Regulation) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    ref: user.ref ?? 0,
    roles: user.roles,
    two_factor_enabled: user.twoFactorEnabled,
    is_partner: user.isPartner,
    status: user.status,
    email_verified_at: user.emailVerifiedAt?.toISOString() ?? null,
    ...(regulation === 'br' ? { identity_status: user.identityStatus } : {}),
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}
