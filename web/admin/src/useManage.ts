import { usePermissions } from 'react-admin';
import { canManage, type Access } from './access.ts';

/** Whether the signed-in user may change `resource`: an action's button shows only then. */
export function useCanManage(resource: string): boolean {
  const { permissions } = usePermissions<Access>();
  return canManage(permissions, resource);
}
