/**
 * How a call to a PSP went wrong, in terms the caller can act on. The PSP's RFC 7807 problem
 * (API Pix's `Problema`: `type`, `title`, `status`, `detail`, `violacoes`) is kept for the log;
 * nothing here ever holds a token, a secret or a request body.
 */

export interface Violation {
  razao?: string;
  propriedade?: string;
  valor?: string;
}

/** API Pix's `Problema` (RFC 7807), or an OAuth2 error answer (RFC 6749 section 5.2) in its terms. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  correlationId?: string;
  violacoes?: Violation[];
}

/**
 * - `problem`: the PSP answered with an error status (its problem attached): it refused, nothing was done;
 * - `timeout`: no complete answer within the call's time limit;
 * - `network`: the connection failed (refused, reset, TLS handshake refused…);
 * - `unexpected`: a success status whose body is not what the spec says.
 */
export type PixApiFailure = 'problem' | 'timeout' | 'network' | 'unexpected';

export class PixApiError extends Error {
  override name = 'PixApiError';
  readonly failure: PixApiFailure;
  /** The HTTP status the PSP answered, if it answered. */
  readonly status: number | undefined;
  readonly problem: Problem | undefined;
  /** What was called: method and path (never the query string, which may name a payer). */
  readonly call: string;

  constructor(
    failure: PixApiFailure,
    call: string,
    message: string,
    options: { status?: number; problem?: Problem; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.failure = failure;
    this.call = call;
    this.status = options.status;
    this.problem = options.problem;
  }

  /**
   * Whether the call may have taken effect at the PSP: a timeout, a broken connection, a server
   * error or an unreadable success leave a write's outcome unknown (record it so, never guess);
   * a 4xx problem is a refusal.
   */
  get outcomeUnknown(): boolean {
    return this.failure !== 'problem' || (this.status !== undefined && this.status >= 500);
  }

  /** A 404 problem: the PSP has no such record. */
  get notFound(): boolean {
    return this.failure === 'problem' && this.status === 404;
  }

  /** What the log keeps: the PSP's own words about the failure. */
  loggable(): Record<string, unknown> {
    return {
      call: this.call,
      failure: this.failure,
      status: this.status,
      message: this.message,
      type: this.problem?.type,
      title: this.problem?.title,
      detail: this.problem?.detail,
      correlationId: this.problem?.correlationId,
      violacoes: this.problem?.violacoes,
    };
  }
}
