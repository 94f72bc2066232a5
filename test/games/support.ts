import assert from 'node:assert/strict';
import { demoThumbnail } from '../../src/modules/games/demo-provider/png.ts';
import type { Client, Response } from '../helpers/app.ts';

export interface AdminProvider {
  id: number;
  name: string;
  code: string;
  sort: number;
  status: number;
  adapter: string;
  games_count: number;
  has_wallet_secret: boolean;
  adapter_config: Record<string, unknown> | null;
  adapter_secrets: string[];
  created_at: string;
  updated_at: string;
}

export interface ProviderGame {
  id: number;
  provider_id: number;
  name: string;
  slug: string;
  code: string;
  category_id: number;
  free: number;
  thumbnail: string | null;
  thumbnail_url: string | null;
  sort: number;
  popular: number;
  status: number;
  created_at: string;
  updated_at: string;
}

export interface Game {
  id: number;
  name: string;
  code: string;
  type: string;
  status: number;
  sort: number;
  settings: Record<string, unknown>;
}

export function dataOf<T>(res: Response): T {
  return (res.json as { data: T }).data;
}

export function listOf<T>(res: Response): T[] {
  assert.equal(res.status, 200, res.text);
  return (res.json as { data: T[] }).data;
}

let made = 0;
/** A short unique slug for this test run. */
export function slug(prefix: string): string {
  made += 1;
  return `${prefix}-${process.pid}-${made}`;
}

export async function createProvider(admin: Client, body: Record<string, unknown> = {}): Promise<AdminProvider> {
  const res = await admin.post('/api/admin/providers', { name: 'Provider', code: slug('prov'), ...body });
  assert.equal(res.status, 201, res.text);
  return dataOf<AdminProvider>(res);
}

export async function createGame(admin: Client, providerId: number, body: Record<string, unknown> = {}): Promise<ProviderGame> {
  const res = await admin.post('/api/admin/provider-games', {
    provider_id: providerId,
    name: 'Game',
    slug: slug('game'),
    code: 'g1',
    ...body,
  });
  assert.equal(res.status, 201, res.text);
  return dataOf<ProviderGame>(res);
}

/** A real PNG uploaded through the upload endpoint: its `path`. */
export async function uploadThumbnail(admin: Client): Promise<string> {
  const boundary = `----croupier${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.png"\r\nContent-Type: image/png\r\n\r\n`),
    demoThumbnail([0, 0, 0], [255, 255, 255], [255, 0, 0]),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await admin.post('/api/admin/upload', body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
  assert.equal(res.status, 200, res.text);
  return (res.json as { path: string }).path;
}
