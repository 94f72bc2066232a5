/**
 * The domain error catalogue. Services throw these; one error handler turns them into the
 * HTTP shapes of docs/api.md section 3. Nothing below the routes knows about HTTP status codes
 * except through this file. Each error also has a stable `code` (snake_case): logged with the
 * refusal and usable by tests, while the bodies keep Laravel's shapes.
 */
export type FieldErrors = Record<string, string[]>;

export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  readonly headers: Record<string, string> = {};

  body(): Record<string, unknown> {
    return { message: this.message };
  }
}

/** A refusal whose status, code and message never vary. */
function fixedError(status: number, code: string, message: string) {
  return class extends DomainError {
    readonly status = status;
    readonly code = code;
    constructor() {
      super(message);
    }
  };
}

/** A refusal that tells the client when to try again (`Retry-After`, in seconds). */
function retryLaterError(status: number, code: string, message: (retryAfter: number) => string) {
  return class extends DomainError {
    readonly status = status;
    readonly code = code;
    constructor(retryAfter: number) {
      super(message(retryAfter));
      this.headers['retry-after'] = String(retryAfter);
    }
  };
}

/** Laravel's validation failure: the summary message plus every message by field. */
export class ValidationError extends DomainError {
  readonly status: number = 422;
  readonly code: string = 'validation_failed';
  readonly errors: FieldErrors;

  constructor(errors: FieldErrors) {
    super(summarize(errors));
    this.errors = errors;
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }

  override body(): Record<string, unknown> {
    return { message: this.message, errors: this.errors };
  }
}

/** Fortify's login lockout: the validation shape with status 429 and a Retry-After. */
export class LockoutError extends ValidationError {
  override readonly status = 429;
  override readonly code: string = 'login_locked';

  constructor(field: string, message: string, retryAfter: number) {
    super({ [field]: [message] });
    this.headers['retry-after'] = String(retryAfter);
  }
}

/** 400: a JSON body nested deeper than any request needs, refused before anything walks it. */
export class BodyTooDeepError extends fixedError(400, 'body_too_deep', 'The JSON body is nested too deeply.') {}

/** 400: a multipart body that cannot be read. */
export class MalformedUploadError extends fixedError(400, 'malformed_upload', 'Malformed multipart body.') {}

export class UnauthenticatedError extends fixedError(401, 'unauthenticated', 'Unauthenticated.') {}

/** 401: a webhook whose signature or timestamp does not check out. */
export class WebhookSignatureError extends fixedError(401, 'invalid_signature', 'Invalid signature.') {}

/** 401: a PIX notification without the `?token=` its payment method requires (docs/api.md section 13). */
export class WebhookTokenError extends fixedError(401, 'invalid_webhook_token', 'Invalid token.') {}

export class ForbiddenError extends fixedError(403, 'forbidden', 'This action is unauthorized.') {}

export class NotFoundError extends DomainError {
  readonly status = 404;
  readonly code: string = 'not_found';
  constructor(message = 'Not found.') {
    super(message);
  }
}

/** 409: the record's state does not allow the change; `code` names which refusal it is. */
export class ConflictError extends DomainError {
  readonly status = 409;
  readonly code: string;

  constructor(message: string, code = 'conflict') {
    super(message);
    this.code = code;
  }
}

export class CsrfMismatchError extends fixedError(419, 'csrf_mismatch', 'CSRF token mismatch.') {}

export class PasswordConfirmationRequiredError extends fixedError(
  423,
  'password_confirmation_required',
  'Password confirmation required.',
) {}

export class TooManyAttemptsError extends retryLaterError(
  429,
  'too_many_attempts',
  (seconds) => `Too many attempts. Please try again in ${seconds} seconds.`,
) {}

/** 502: the payment gateway failed or answered something unusable; nothing was charged on our side. */
export class GatewayUnavailableError extends fixedError(
  502,
  'gateway_unavailable',
  'The payment gateway is unavailable. Please try again later.',
) {}

/** 502: a game provider failed to open a game; the launch it was given can no longer be used. */
export class ProviderUnavailableError extends fixedError(
  502,
  'provider_unavailable',
  'The game provider is unavailable. Please try again later.',
) {}

/** 503: the database does not answer or its schema is not migrated; nothing was done. */
export class ServiceUnavailableError extends retryLaterError(503, 'service_unavailable', () => 'Service Unavailable.') {
  constructor(retryAfter = 5) {
    super(retryAfter);
  }
}

/** `message` is the first error, then "(and N more error[s])" counting every other message. */
export function summarize(errors: FieldErrors): string {
  const messages = Object.values(errors).flat();
  const [first] = messages;
  if (first === undefined) return 'The given data was invalid.';
  const more = messages.length - 1;
  if (more === 0) return first;
  return `${first} (and ${more} more error${more === 1 ? '' : 's'})`;
}

/** 400: an HTTP request the server cannot take as one (a bad request line or header, no Host). */
export class MalformedRequestError extends fixedError(400, 'malformed_request', 'Malformed HTTP request.') {}

/** 403: Laravel's `verified` middleware, on a money route while EMAIL_VERIFICATION=on and the e-mail is unverified. */
export class EmailNotVerifiedError extends fixedError(403, 'email_not_verified', 'Your email address is not verified.') {}

/** 403: ADMIN_TWO_FACTOR=required, on an admin route for staff whose two-factor is not confirmed (docs/api.md section 8). */
export class TwoFactorRequiredError extends fixedError(403, 'two_factor_required', 'Two-factor authentication is required for staff.') {}

/** 403: REGULATION=br, on a money or play route while the player's identity is not verified (docs/api.md section 14). */
export class IdentityNotVerifiedError extends fixedError(
  403,
  'identity_not_verified',
  'Verify your identity before you deposit, play or withdraw.',
) {}

/** 403: Laravel's `signed` middleware: a link whose signature is wrong or whose `expires` has passed. */
export class InvalidLinkSignatureError extends fixedError(403, 'invalid_link_signature', 'Invalid signature.') {}
