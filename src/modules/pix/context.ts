import type { AppContext } from '../../platform/context.ts';

/**
 * What the PIX services need of the app: the database and the money metrics. A command builds it
 * from its own database (src/commands.ts); the app hands its context.
 */
export type PixContext = Pick<AppContext, 'db' | 'money'>;
