import { GameAdapters } from './adapter.ts';
import { DemoAdapter } from '../demo-provider/adapter.ts';
import { Hub88Adapter } from '../hub88/adapter.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The game provider adapters of this app (built in app.ts); tests may register their own. */
    gameAdapters: GameAdapters;
  }
}

/** The adapters every instance has: the built-in demo provider and Hub88's Operator API. */
export function builtInAdapters(): GameAdapters {
  return new GameAdapters([new DemoAdapter(), new Hub88Adapter()]);
}
