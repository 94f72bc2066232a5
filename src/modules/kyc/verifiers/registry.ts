import { ManualVerifier } from './manual.ts';
import { IdentityVerifiers } from './verifier.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The identity verifiers of this app (built in app.ts); an operator's vendor adapter, or a test's, registers here. */
    identityVerifiers: IdentityVerifiers;
  }
}

/** The verifiers every instance has: the built-in `manual` one, the default. */
export function builtInVerifiers(): IdentityVerifiers {
  const manual = new ManualVerifier();
  return new IdentityVerifiers([manual], manual.code);
}
