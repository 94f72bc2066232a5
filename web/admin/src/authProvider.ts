import type { AuthProvider } from 'react-admin';
import { api, ApiError } from '../../shared/api.ts';
import { access, can, canManage, forgetAccess, signedIn, TWO_FACTOR_REQUIRED } from './access.ts';

/**
 * Sign-in is the API's own (docs/api.md section 6): the login page (LoginPage.tsx) runs the
 * password and two-factor steps, then calls login() to enter the app.
 */
export const authProvider: AuthProvider = {
  login: async () => {
    forgetAccess();
    await access();
  },
  logout: async () => {
    if (!signedIn()) return;
    forgetAccess();
    try {
      await api.post('/api/logout');
    } catch {
      // Already signed out: nothing to end.
    }
  },
  checkAuth: async () => {
    await access();
  },
  checkError: async (error: unknown) => {
    const status = error instanceof ApiError ? error.status : (error as { status?: number } | null)?.status;
    if (status === 401) {
      forgetAccess();
      throw new Error('Signed out');
    }
    if (status === 403 && error instanceof ApiError && error.message === TWO_FACTOR_REQUIRED) {
      forgetAccess();
      // react-admin reads where to go from the error's fields.
      throw Object.assign(new Error(TWO_FACTOR_REQUIRED), { redirectTo: '/two-factor', logoutUser: false, message: false });
    }
  },
  getIdentity: async () => {
    const { user } = await access();
    return { id: user.id, fullName: user.name };
  },
  getPermissions: async () => access(),
  canAccess: async ({ resource, action }) => {
    const a = await access();
    return action === 'create' || action === 'edit' || action === 'delete' ? can(a, resource) && canManage(a, resource) : can(a, resource);
  },
};
