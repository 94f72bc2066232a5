import type { Config } from '../../config.ts';
import type { AppContext } from '../../platform/context.ts';

/**
 * What the PIX services need of the app: the database, the money metrics and the regulation in
 * force (REGULATION=br decides whose money may be credited, docs/api.md section 14). A command
 * builds it from its own database and configuration (src/commands.ts); the app hands its context.
 */
export type PixContext = Pick<AppContext, 'db' | 'money'> & { config: Pick<Config, 'regulation'> };
