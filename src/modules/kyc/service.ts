import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import type { Clock } from '../../platform/clock.ts';
import type { AppContext } from '../../platform/context.ts';
import { isUniqueViolation, transaction, type Db } from '../../platform/db/client.ts';
import { ConflictError, ValidationError } from '../../platform/errors.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { Logger } from '../../platform/logger.ts';
import { appendHistory, cpfHeldByAnother, CPF_HELD_CONSTRAINT, decide, findIdentity, upsertSubmission } from './repository.ts';
import { parseIdentity } from './rules.ts';
import type { IdentityRow } from './tables.ts';
import type { IdentityVerifiers, VerifierDecision } from './verifiers/verifier.ts';

/** How long a verifier may take to answer before the submission is left pending. */
export const VERIFIER_TIMEOUT_MS = 10_000;

const TAKEN = 'The cpf has already been taken.';

/**
 * The player's identity (docs/api.md section 14, docs/regulation.md): the submission, the
 * verifier's answer, the operators' decisions. Every change keeps its history row, and ends the
 * cached view of the user's sessions (sessions.userChanged) so the money routes' guard sees the
 * new status on the next request, on every instance.
 */
export class IdentityService {
  readonly #ctx: AppContext;
  readonly #verifiers: IdentityVerifiers;
  readonly #clock: Clock;

  constructor(ctx: AppContext, verifiers: IdentityVerifiers, clock: Clock) {
    this.#ctx = ctx;
    this.#verifiers = verifiers;
    this.#clock = clock;
  }

  show(userId: number): Promise<IdentityRow | undefined> {
    return findIdentity(this.#ctx.db, userId);
  }

  /**
   * The player submits (or corrects) their identity: pending, then the verifier is asked once
   * the submission committed. 409 once verified; 422 on the fields' rules or a CPF another user
   * holds.
   */
  async submit(userId: number, body: { cpf: string; full_name: string; birth_date: string }, log: Logger): Promise<IdentityRow> {
    const input = parseIdentity(body, this.#clock.now());
    const verifier = this.#verifiers.current();
    let submitted: IdentityRow;
    try {
      submitted = await transaction(this.#ctx.db, async (tx) => {
        const current = await findIdentity(tx, userId, true);
        if (current?.status === 'verified') {
          throw new ConflictError('Your identity is verified and can no longer be changed.', 'identity_verified');
        }
        if (await cpfHeldByAnother(tx, input.cpf, userId)) throw ValidationError.field('cpf', TAKEN);
        const row = await upsertSubmission(tx, { userId, ...input, verifier: verifier.code });
        await appendHistory(tx, row, 'submitted', null);
        return row;
      });
    } catch (error) {
      // Two users submitting one CPF at once: the index decides, the loser gets the same 422.
      if (isUniqueViolation(error, CPF_HELD_CONSTRAINT)) throw ValidationError.field('cpf', TAKEN);
      throw error;
    }
    await this.#ctx.sessions.userChanged(userId);

    const decision = await this.#ask(verifier.code, submitted, log);
    if (decision.status === 'pending') return submitted;
    const decided = await transaction(this.#ctx.db, (tx) => this.#decide(tx, userId, submitted.submittedAt, decision, null));
    if (decided === undefined) return (await findIdentity(this.#ctx.db, userId)) ?? submitted;
    await this.#ctx.sessions.userChanged(userId);
    return decided;
  }

  /** An operator approves or rejects the pending identity (logged); 404 without one, 409 when not pending. */
  async review(
    entry: OperationEntry,
    userId: number,
    decision: { status: 'verified' } | { status: 'rejected'; reason: string },
  ): Promise<IdentityRow> {
    const row = await loggedTransaction(this.#ctx.db, entry, async (tx) => {
      const current = await findIdentity(tx, userId, true);
      if (current === undefined) throw new ConflictError('The user has not submitted an identity.', 'identity_missing');
      if (current.status !== 'pending') {
        throw new ConflictError(`The identity is ${current.status}, not pending.`, 'identity_not_pending');
      }
      return (await this.#decide(tx, userId, null, decision, entry.userId))!;
    });
    await this.#ctx.sessions.userChanged(userId);
    return row;
  }

  async #decide(
    tx: Db,
    userId: number,
    submittedAt: Date | null,
    decision: Exclude<VerifierDecision, { status: 'pending' }>,
    actorId: number | null,
  ): Promise<IdentityRow | undefined> {
    const row = await decide(tx, userId, submittedAt, decision, actorId);
    if (row !== undefined) await appendHistory(tx, row, decision.status, actorId);
    return row;
  }

  /** The verifier's answer within VERIFIER_TIMEOUT_MS; a failure or a timeout is no decision (pending). */
  async #ask(code: string, row: IdentityRow, log: Logger): Promise<VerifierDecision> {
    const verifier = this.#verifiers.get(code);
    if (verifier === undefined) return { status: 'pending' };
    try {
      const answer = await verifier.verify(
        { userId: row.userId, cpf: row.cpf, fullName: row.fullName, birthDate: row.birthDate },
        AbortSignal.timeout(VERIFIER_TIMEOUT_MS),
      );
      if (answer.status === 'rejected' && answer.reason.trim() === '') return { status: 'rejected', reason: 'Rejected by the verifier.' };
      return answer;
    } catch (error) {
      log.warn({ err: loggableError(error), verifier: code, userId: row.userId }, 'identity verifier failed; the identity stays pending');
      return { status: 'pending' };
    }
  }
}
