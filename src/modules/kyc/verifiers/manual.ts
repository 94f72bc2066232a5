import type { IdentityVerifier, VerifierDecision } from './verifier.ts';

/**
 * The built-in verifier: decides nothing, so every submission waits for an operator's approve
 * or reject (POST /api/admin/users/:user/identity/approve|reject) after checking the player's
 * documents by whatever means the operator has.
 */
export class ManualVerifier implements IdentityVerifier {
  readonly code = 'manual';

  verify(): Promise<VerifierDecision> {
    return Promise.resolve({ status: 'pending' });
  }
}
