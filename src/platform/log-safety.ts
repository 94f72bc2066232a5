import { DrizzleQueryError } from 'drizzle-orm/errors';

/**
 * What of an error may reach the log. A failed query's message carries its parameters, which can
 * be a password hash, an encrypted secret or a token; only the query text and the database's own
 * error are kept.
 */
export function loggableError(error: unknown): Record<string, unknown> {
  if (error instanceof DrizzleQueryError) {
    const cause = error.cause as { message?: string; code?: string; constraint?: string; stack?: string } | undefined;
    return {
      type: 'DrizzleQueryError',
      message: cause?.message ?? 'query failed',
      code: cause?.code,
      constraint: cause?.constraint,
      query: error.query,
      stack: cause?.stack,
    };
  }
  if (error instanceof Error) {
    return { type: error.name, message: error.message, stack: error.stack, code: (error as { code?: unknown }).code };
  }
  return { type: typeof error, message: String(error) };
}

/**
 * Query parameters that carry a credential (a game launch token, a session token, the signature
 * of an e-mail verification link): never logged.
 */
const SECRET_QUERY = /([?&](?:token|session|signature)=)[^&#]*/gi;

/** A URL as it may appear in a log line: the value of every credential parameter replaced. */
export function loggableUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}
