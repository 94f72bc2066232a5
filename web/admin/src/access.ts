import { api, ApiError } from '../../shared/api.ts';

/** The staff message of ADMIN_TWO_FACTOR=required (contract section 16). */
export const TWO_FACTOR_REQUIRED = 'Two-factor authentication is required for staff.';

export interface SignedInUser {
  id: number;
  name: string;
  email: string;
  roles: string[];
  two_factor_enabled: boolean;
  identity_status?: string;
}

export interface Access {
  user: SignedInUser;
  /** `<resource>.view` names the API let this user read. */
  views: Set<string>;
  /**
   * Resources this user may change (`<resource>.manage`): every one for super-admin, those of
   * the user's roles when the user may read roles, else unknown (actions are shown, and the API's
   * 403 is shown as its message).
   */
  manages: Set<string> | 'all' | 'unknown';
  noAccess: boolean;
  twoFactorRequired: boolean;
  /** REGULATION=br: the user record carries identity_status only then (docs/api.md section 14). */
  regulated: boolean;
}

/** What each screen reads first; its answer (200 or 403) says whether this user may see it. */
const PROBES: Record<string, string> = {
  users: '/api/admin/users?per_page=1',
  roles: '/api/admin/roles?per_page=1',
  permissions: '/api/admin/permissions?per_page=1',
  balances: '/api/admin/balances?per_page=1',
  transactions: '/api/admin/transactions?per_page=1',
  'payment-methods': '/api/admin/payment-methods?per_page=1',
  topups: '/api/admin/topups?per_page=1',
  'pix-payments': '/api/admin/pix-payments?per_page=1',
  withdrawals: '/api/admin/withdrawals?per_page=1',
  settings: '/api/admin/settings/referral',
  providers: '/api/admin/providers?per_page=1',
  'provider-games': '/api/admin/provider-games?per_page=1',
  games: '/api/admin/games?per_page=1',
  'provider-bets': '/api/admin/provider-bets?per_page=1',
  draws: '/api/admin/draws?per_page=1',
  bets: '/api/admin/bets?per_page=1',
  settlements: '/api/admin/settlements?per_page=1',
  refunds: '/api/admin/refunds?per_page=1',
  'operation-logs': '/api/admin/operation-logs?per_page=1',
  identities: '/api/admin/identities?per_page=1',
  reports: '/api/admin/reports/daily?date=2026-01-01',
};

let cached: Promise<Access> | undefined;

/**
 * The API has no route listing a user's own permissions, so each screen's first read is asked
 * once after sign-in: a 403 hides the screen. Writes are shown with their screen; a 403 on one
 * is shown as the API's message.
 */
export function access(): Promise<Access> {
  cached ??= load().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

export function forgetAccess(): void {
  cached = undefined;
}

/** Whether a sign-in succeeded in this page (a sign-out with none would only be a 401). */
export function signedIn(): boolean {
  return cached !== undefined;
}

async function load(): Promise<Access> {
  const user = (await api.get<SignedInUser>('/api/user')).body;
  const views = new Set<string>();
  let twoFactorRequired = false;
  const staff = user.roles.some((role) => role !== 'player');
  if (staff) {
    await Promise.all(
      Object.entries(PROBES).map(async ([resource, path]) => {
        try {
          await api.get(path);
          views.add(resource);
        } catch (error) {
          if (error instanceof ApiError && error.status === 403 && error.message === TWO_FACTOR_REQUIRED) twoFactorRequired = true;
          // A 422 (a report route wanting its date) still proves the permission passed.
          else if (error instanceof ApiError && error.status === 422) views.add(resource);
        }
      }),
    );
  }
  return {
    user,
    views,
    manages: await managed(user, views),
    noAccess: !twoFactorRequired && views.size === 0,
    twoFactorRequired,
    regulated: 'identity_status' in user,
  };
}

async function managed(user: SignedInUser, views: Set<string>): Promise<Access['manages']> {
  if (user.roles.includes('super-admin')) return 'all';
  if (!views.has('roles')) return 'unknown';
  const names = new Set<string>();
  for (const role of user.roles) {
    const found = await api.get<{ data: { name: string; permissions: string[] }[] }>(`/api/admin/roles?name=${encodeURIComponent(role)}`);
    for (const permission of found.body.data.find((item) => item.name === role)?.permissions ?? []) {
      if (permission.endsWith('.manage')) names.add(permission.slice(0, -'.manage'.length));
    }
  }
  return names;
}

/** Whether the user may change `resource` (players are users); unknown counts as yes, the API has the last word. */
export function canManage(a: Access | undefined, resource: string): boolean {
  if (a === undefined) return false;
  if (a.manages === 'all' || a.manages === 'unknown') return true;
  return a.manages.has(resource === 'players' ? 'users' : resource);
}

export function can(a: Access | undefined, resource: string): boolean {
  if (a === undefined) return false;
  if (resource === 'players') return a.views.has('users');
  if (resource === 'dashboard') return a.views.has('reports');
  return a.views.has(resource);
}
