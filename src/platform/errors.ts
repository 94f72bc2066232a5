/**
 * The domain error catalogue. Services throw these; one error handler turns them into the
 * contract's HTTP shapes (section 3). Nothing below the routes knows about HTTP status codes
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
export class BodyTooDeepError extends DomainError {
  readonly status = 400;
  readonly code: string = 'body_too_deep';
  constructor() {
    super('The JSON body is nested too deeply.');
  }
}

/** 400: a multipart body that cannot be read. */
export class MalformedUploadError extends DomainError {
  readonly status = 400;
  readonly code: string = 'malformed_upload';
  constructor() {
    super('Malformed multipart body.');
  }
}

export class UnauthenticatedError extends DomainError {
  readonly status = 401;
  readonly code: string = 'unauthenticated';
  constructor() {
    super('Unauthenticated.');
  }
}

/** 401: a webhook whose signature or timestamp does not check out. */
export class WebhookSignatureError extends DomainError {
  readonly status = 401;
  readonly code: string = 'invalid_signature';
  constructor() {
    super('Invalid signature.');
  }
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
  readonly code: string = 'forbidden';
  constructor() {
    super('This action is unauthorized.');
  }
}

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

export class CsrfMismatchError extends DomainError {
  readonly status = 419;
  readonly code: string = 'csrf_mismatch';
  constructor() {
    super('CSRF token mismatch.');
  }
}

export class PasswordConfirmationRequiredError extends DomainError {
  readonly status = 423;
  readonly code: string = 'password_confirmation_required';
  constructor() {
    super('Password confirmation required.');
  }
}

export class TooManyAttemptsError extends DomainError {
  readonly status = 429;
  readonly code: string = 'too_many_attempts';
  constructor(retryAfter: number) {
    super(`Too many attempts. Please try again in ${retryAfter} seconds.`);
    this.headers['retry-after'] = String(retryAfter);
  }
}

/** 502: the payment gateway failed or answered something unusable; nothing was charged on our side. */
export class GatewayUnavailableError extends DomainError {
  readonly status = 502;
  readonly code: string = 'gateway_unavailable';
  constructor() {
    super('The payment gateway is unavailable. Please try again later.');
  }
}

/** 503: the database does not answer or its schema is not migrated; nothing was done. */
export class ServiceUnavailableError extends DomainError {
  readonly status = 503;
  readonly code: string = 'service_unavailable';
  constructor(retryAfter = 5) {
    super('Service Unavailable.');
    this.headers['retry-after'] = String(retryAfter);
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
