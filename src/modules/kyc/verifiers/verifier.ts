import { Registry } from '../../../platform/registry.ts';

/** What a player submitted, as a verifier receives it (docs/api.md section 14). */
export interface IdentitySubmission {
  userId: number;
  /** The CPF's 11 digits. */
  cpf: string;
  fullName: string;
  /** YYYY-MM-DD. */
  birthDate: string;
}

/**
 * A verifier's answer: `pending` when it cannot decide now (the built-in manual verifier, which
 * leaves the decision to an operator, or a vendor still waiting for the player's selfie);
 * `verified` or `rejected` (with a reason shown to the player) when it decided.
 */
export type VerifierDecision = { status: 'pending' } | { status: 'verified' } | { status: 'rejected'; reason: string };

/**
 * One way of verifying identities: the manual review, or an automatic vendor (facial
 * biometrics with a liveness check, the Receita Federal's CPF registry). An adapter translates
 * our submission into its vendor's protocol and the answer back; the rules (who may submit, the
 * age, the CPF's owner) stay in the service. Called after the submission committed, never inside
 * a transaction, within `timeoutMs`: a failure or a timeout leaves the identity pending (an
 * unknown outcome is never taken for a decision), for an operator or a later answer.
 */
export interface IdentityVerifier {
  readonly code: string;
  verify(submission: IdentitySubmission, signal: AbortSignal): Promise<VerifierDecision>;
}

/** The verifiers this instance knows, by code, and the one new submissions go to. */
export class IdentityVerifiers extends Registry<IdentityVerifier> {
  #default: string;

  constructor(verifiers: IdentityVerifier[], defaultCode: string) {
    super(verifiers);
    this.#default = defaultCode;
  }

  override register(verifier: IdentityVerifier, asDefault = false): void {
    super.register(verifier);
    if (asDefault) this.#default = verifier.code;
  }

  /** The verifier a new submission goes to. */
  current(): IdentityVerifier {
    const verifier = this.get(this.#default);
    if (verifier === undefined) throw new Error(`No identity verifier "${this.#default}" is registered.`);
    return verifier;
  }
}
