/** The V8 flags croupier processes run with (bin/node-flags.js says why). */
export declare const NODE_FLAGS: readonly string[];
