// Moved to the admin convention; kept only until the branches in flight are merged.
export { adminTransaction } from '../../platform/admin/operation-log.ts';
