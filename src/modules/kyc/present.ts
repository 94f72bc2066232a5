import { Type } from 'typebox';
import { identityStatusSchema } from '../../platform/auth/identity.ts';
import type { IdentityRow } from './tables.ts';

/** `123.***.***-09`: enough for a player or an operator to recognise it, not to use it. */
export function maskCpf(cpf: string): string {
  return `${cpf.slice(0, 3)}.***.***-${cpf.slice(9, 11)}`;
}

const Status = identityStatusSchema('unverified (nothing submitted), pending, verified or rejected.');
const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

/** GET/PUT /api/user/identity (docs/api.md section 14). */
export const IdentityRecord = Type.Object({
  status: Status,
  cpf: Nullable(Type.String({ description: 'Masked: 123.***.***-09.' })),
  full_name: Nullable(Type.String()),
  birth_date: Nullable(Type.String({ format: 'date' })),
  reason: Nullable(Type.String({ description: 'Why it was rejected.' })),
  verified_at: Nullable(Type.String({ format: 'date-time' })),
});

export function presentIdentity(row: IdentityRow | undefined) {
  if (row === undefined) {
    return { status: 'unverified' as const, cpf: null, full_name: null, birth_date: null, reason: null, verified_at: null };
  }
  return {
    status: row.status,
    cpf: maskCpf(row.cpf),
    full_name: row.fullName,
    birth_date: row.birthDate,
    reason: row.reason,
    verified_at: row.verifiedAt?.toISOString() ?? null,
  };
}

/** The admin list's item (docs/api.md section 14). */
export const AdminIdentityRecord = Type.Object({
  user_id: Type.Integer(),
  status: Status,
  cpf: Type.String({ description: 'Masked: 123.***.***-09.' }),
  full_name: Type.String(),
  birth_date: Type.String({ format: 'date' }),
  reason: Nullable(Type.String()),
  submitted_at: Type.String({ format: 'date-time' }),
});

export function presentAdminIdentity(row: IdentityRow) {
  return {
    user_id: row.userId,
    status: row.status,
    cpf: maskCpf(row.cpf),
    full_name: row.fullName,
    birth_date: row.birthDate,
    reason: row.reason,
    submitted_at: row.submittedAt.toISOString(),
  };
}
