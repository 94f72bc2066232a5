import { sql } from 'drizzle-orm';
import { one, rows } from '../../src/platform/db/client.ts';
import type { SignedIn, TestApp } from '../helpers/app.ts';

export interface OperationLog {
  id: number;
  user_id: number;
  path: string;
  method: string;
  ip: string;
  payload: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** A new role holding exactly `permissions`, and a signed-in user holding only that role. */
export async function userWithPermissions(app: TestApp, permissions: string[]): Promise<SignedIn> {
  const name = `role-${Math.random().toString(36).slice(2, 10)}`;
  const role = await one<{ id: number }>(app.db, sql`insert into roles (name) values (${name}) returning id`);
  await app.db.execute(sql`insert into permission_role (role_id, permission_id)
    select ${role!.id}, id from permissions where name = any(${sql.param(permissions)}::text[])`);
  return app.withRole(name);
}

export async function countLogs(app: TestApp): Promise<number> {
  const row = await one<{ n: number }>(app.db, sql`select count(*)::int as n from operation_logs`);
  return row!.n;
}

export async function lastLog(app: TestApp): Promise<OperationLog> {
  const [row] = await rows<OperationLog>(app.db, sql`select * from operation_logs order by id desc limit 1`);
  return row!;
}

interface Envelope<T> {
  data: T[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: { current_page: number; from: number | null; last_page: number; path: string; per_page: number; to: number | null; total: number };
}

export function page<T>(json: unknown): Envelope<T> {
  return json as Envelope<T>;
}

export function data<T>(json: unknown): T {
  return (json as { data: T }).data;
}
