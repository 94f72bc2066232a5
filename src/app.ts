import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import type { Config } from './config.ts';
import { registerAccessRoutes } from './modules/access/routes.ts';
import { registerBackOfficeRoutes } from './modules/backoffice/routes.ts';
import { EmailVerificationService } from './modules/auth/email-verification.ts';
import { registerEmailVerificationRoutes } from './modules/auth/email-verification-routes.ts';
import { PasswordResetService } from './modules/auth/password-reset.ts';
import { registerAuthRoutes } from './modules/auth/routes.ts';
import { AccountService } from './modules/auth/service.ts';
import { registerBankRoutes } from './modules/banks/routes.ts';
import type { GameProviderAdapter } from './modules/games/adapters/adapter.ts';
import { builtInAdapters } from './modules/games/adapters/registry.ts';
import { Catalogue } from './modules/games/catalogue/catalogue.ts';
import { registerCatalogueRoutes } from './modules/games/catalogue/routes.ts';
import { LaunchService } from './modules/games/launch/service.ts';
import { registerAdminGameSessionRoutes } from './modules/games/launch/admin-sessions.ts';
import { registerLaunchRoutes } from './modules/games/launch/routes.ts';
import { GameSessionPruner } from './modules/games/launch/session-retention.ts';
import { endGameSessions } from './modules/games/launch/session-end.ts';
import { DemoGameServer } from './modules/games/demo-provider/game-server.ts';
import { registerDemoGameRoutes } from './modules/games/demo-provider/routes.ts';
import { DemoWalletClient } from './modules/games/demo-provider/wallet-client.ts';
import { registerHeldWinRoutes } from './modules/games/held-wins/routes.ts';
import { HeldWinService } from './modules/games/held-wins/service.ts';
import { registerProviderBetRoutes } from './modules/games/provider-bets/routes.ts';
import { ProviderBetService } from './modules/games/provider-bets/service.ts';
import { ProviderCallbacks } from './modules/games/seamless-wallet/provider-callbacks.ts';
import { ProviderRequestPruner } from './modules/games/seamless-wallet/request-retention.ts';
import { registerProviderCallbackRoutes } from './modules/games/seamless-wallet/routes.ts';
import { Readiness } from './modules/health/readiness.ts';
import { registerHealthRoutes } from './modules/health/routes.ts';
import { registerIdentityRoutes } from './modules/kyc/routes.ts';
import { IdentityService } from './modules/kyc/service.ts';
import { builtInVerifiers } from './modules/kyc/verifiers/registry.ts';
import { registerReportRoutes } from './modules/reports/routes.ts';
import { ReportService } from './modules/reports/service.ts';
import { registerOperationLogRoutes } from './modules/operation-logs/routes.ts';
import { builtInGateways } from './modules/payments/gateways/registry.ts';
import { PixMethods } from './modules/payments/pix-api/methods.ts';
import { registerPixRoutes } from './modules/pix/routes.ts';
import { registerPaymentRoutes } from './modules/payments/routes.ts';
import { registerReferralRoutes } from './modules/referral/routes.ts';
import { ReferralService } from './modules/referral/service.ts';
import { registerSettingsRoutes } from './modules/settings/routes.ts';
import { SettingsService } from './modules/settings/service.ts';
import { registerPayPageRoutes } from './modules/topups/pay-page-routes.ts';
import { registerTopupRoutes } from './modules/topups/routes.ts';
import { registerUploadRoutes } from './modules/uploads/routes.ts';
import { UploadService } from './modules/uploads/service.ts';
import { TopupService } from './modules/topups/service.ts';
import { UserIdentity } from './modules/users/identity.ts';
import { PayoutMethodService } from './modules/withdrawals/payout-method.ts';
import { registerPayoutMethodRoutes } from './modules/withdrawals/payout-method-routes.ts';
import { PayoutReconciler } from './modules/withdrawals/payout-reconciler.ts';
import { PayoutService } from './modules/withdrawals/payouts.ts';
import { registerWithdrawalRoutes } from './modules/withdrawals/routes.ts';
import { WithdrawalService } from './modules/withdrawals/service.ts';
import { registerUserRoutes } from './modules/users/routes.ts';
import { registerWalletRoutes } from './modules/wallet/routes.ts';
import { WalletService } from './modules/wallet/service.ts';
import { registerGameAdminRoutes } from './modules/draws/admin-games.ts';
import { registerDrawRoutes, registerDrawScheduler } from './modules/draws/routes.ts';
import { DrawService } from './modules/draws/service.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import { registerLimitRoutes } from './modules/limits/routes.ts';
import { ResponsibleGambling } from './modules/limits/service.ts';
import { PasswordHasher, type HashingOptions } from './platform/auth/passwords.ts';
import { LocalInvalidationBus } from './platform/cache/invalidation.ts';
import { PgInvalidationBus } from './platform/cache/pg-invalidation.ts';
import { RedisInvalidationBus } from './platform/cache/redis-invalidation.ts';
import { logDestination } from './platform/log-output.ts';
import { loggableUrl } from './platform/log-safety.ts';
import { docsUiOptions, openapiOptions } from './platform/http/openapi.ts';
import { lazySerializerFactory } from './platform/http/lazy-serializers.ts';
import { Metrics } from './platform/metrics/registry.ts';
import { noMoneyEvents } from './platform/metrics/money.ts';
import { registerMetrics } from './platform/metrics/routes.ts';
import type { AppContext } from './platform/context.ts';
import { BodyTooDeepError } from './platform/errors.ts';
import { Keyring } from './platform/crypto.ts';
import type { Database } from './platform/db/client.ts';
import { registerDrain } from './platform/http/drain.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './platform/http/error-handler.ts';
import { registerLocale } from './platform/i18n/http.ts';
import { registerGuard } from './platform/http/guard.ts';
import { logMixin } from './platform/http/request-log.ts';
import { scheduleHousekeeping } from './platform/housekeeping.ts';
import { LocalDiskStorage } from './platform/storage/local-disk.ts';
import { registerStorageRoutes } from './platform/storage/routes.ts';
import { createMailer, type Mailer } from './platform/mail/mailer.ts';
import { DbRateLimiter } from './platform/rate-limit.ts';
import { closeRedis, connectRedis, RedisRateLimiter } from './platform/redis.ts';
import { backingSessionStore } from './platform/session/backing-store.ts';
import { CachedSessionStore } from './platform/session/cached-store.ts';
import { SessionManager } from './platform/session/manager.ts';
import { RememberTokens } from './platform/session/remember.ts';
import { nestsDeeperThan, normalizeInput } from './platform/input.ts';
import { rejectUnstorableText, schemaCompiler } from './platform/validation.ts';

export interface AppOptions {
  database: Database;
  mailer?: Mailer;
  /** Tests make password hashing cheap; production keeps the argon2id defaults. */
  hashing?: HashingOptions;
  /** Where log lines go (stdout by default); tests read them to prove no secret is logged. */
  logStream?: NodeJS.WritableStream;
  /** Game provider adapters besides the built-in `demo` (tests add one with another wire format). */
  gameAdapters?: GameProviderAdapter[];
  /** Extra routes (the benchmark's bare and floor routes); registered like any other. */
  extraRoutes?: (app: FastifyInstance, ctx: AppContext) => void;
  /** The clock of draw games, of the age of majority and of session times (the system clock by default); tests set the time by hand. */
  clock?: Clock;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** JSON bodies are small; uploads have their own, configured limit. */
const JSON_BODY_LIMIT = 1024 * 1024;

const CORS_HEADERS = ['Content-Type', 'X-XSRF-TOKEN', 'X-CSRF-TOKEN', 'X-Requested-With', 'Accept', 'Authorization', 'Idempotency-Key'];
const EXPOSED_HEADERS = ['Retry-After', 'X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining'];

export async function buildApp(config: Config, options: AppOptions): Promise<FastifyInstance> {
  const logStream = logDestination(config.logFormat, options.logStream, process.stdout.isTTY === true);
  const app = Fastify({
    logger: {
      level: config.logLevel,
      mixin: logMixin,
      ...(logStream === undefined ? {} : { stream: logStream }),
      redact: {
        paths: [
          'req.headers.cookie',
          'req.headers["x-xsrf-token"]',
          'req.headers["x-csrf-token"]',
          'req.headers.authorization',
          'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
      serializers: {
        // Fastify's own request fields, with credentials in the query string (a launch token) redacted.
        req: (request: FastifyRequest) => ({
          method: request.method,
          url: loggableUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
    },
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    bodyLimit: JSON_BODY_LIMIT,
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    // Response serializers built on a route's first answer, not at start (lazy-serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } },
    frameworkErrors,
    clientErrorHandler,
    // Node answers an HTTP/1.1 request without Host with an empty 400; the error handler answers it (error-handler.ts).
    http: { requireHostHeader: false },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const db = options.database.db;
  const keys = new Keyring(config.appKey);
  const identity = new UserIdentity();
  const redis = config.redisUrl === undefined ? undefined : connectRedis(config.redisUrl, app.log);
  const database = options.database;
  // Caches hear every instance's changes through Redis, or PostgreSQL's NOTIFY without it; the
  // embedded database belongs to one process, which has no one else to hear.
  const invalidation =
    redis !== undefined
      ? new RedisInvalidationBus(redis, app.log)
      : database.url !== undefined && database.directUrl !== undefined
        ? new PgInvalidationBus({ listen: database.directUrl, publish: database.url }, app.log)
        : new LocalInvalidationBus();
  const sessionStore = new CachedSessionStore(backingSessionStore(db, identity, redis, config.sessionLifetimeMin * 60), invalidation, {
    maxAgeMs: config.sessionCacheS * 1000,
    maxEntries: 100_000,
  });
  // Built only when enabled: off, no request pays for the histogram and /metrics is a 404.
  const metrics = config.metrics.enabled ? new Metrics({ pool: options.database.pool }) : undefined;
  // The time services read (draws, the age of majority, sign-ins and session times); tests set it by hand.
  const clock = options.clock ?? systemClock;
  const ctx: AppContext = {
    config,
    database: options.database,
    db,
    keys,
    identity,
    sessions: new SessionManager(sessionStore, new RememberTokens({ db, keys, identity }), config, clock),
    mailer: options.mailer ?? createMailer({ mailUrl: config.mailUrl, from: config.mailFrom, dataDir: config.dataDir }),
    limiter: redis === undefined ? new DbRateLimiter(db) : new RedisRateLimiter(redis),
    redis,
    invalidation,
    registrationHooks: [],
    money: metrics ?? noMoneyEvents,
  };
  app.decorate('invalidation', ctx.invalidation);

  app.setValidatorCompiler(schemaCompiler);
  // Laravel reads an empty JSON body as no input at all, and axios sends one for `post(url)`.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch (error) {
      const syntax = error as SyntaxError & { statusCode?: number };
      syntax.statusCode = 400;
      return done(syntax, undefined);
    }
    // A body error, so a 400 before CSRF and sign-in are looked at (docs/api.md section 3).
    if (nestsDeeperThan(parsed)) return done(new BodyTooDeepError(), undefined);
    done(null, parsed);
  });

  registerLocale(app, config.appLocale, config.appLocaleNegotiate);
  registerErrorHandling(app);
  registerDrain(app);
  await app.register(cookie);
  await app.register(cors, {
    origin: config.corsOrigins,
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: CORS_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 7200,
    optionsSuccessStatus: 204,
  });
  await app.register(swagger, openapiOptions(config));
  await app.register(swaggerUi, docsUiOptions());

  // Hooks every request passes through are written with `done`: an async hook costs each request
  // a promise and a turn of the microtask queue for work that never waits (docs/benchmarks.md).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  if (metrics !== undefined) registerMetrics(app, metrics, config.metrics.token);
  app.addHook('preValidation', (request, _reply, done) => {
    const body = request.body;
    if (body === undefined) return done();
    const arrayAs = request.routeOptions.config.arrayBodyAs;
    request.body = normalizeInput(arrayAs !== undefined && Array.isArray(body) ? { [arrayAs]: body } : body);
    done();
  });
  registerGuard(app, ctx);
  // After CSRF, sign-in and permission, before any route's own work (the login throttle keys on
  // the e-mail): PostgreSQL cannot store a NUL or a lone surrogate, and no route may get as far
  // as asking it to.
  app.addHook('preValidation', (request, _reply, done) => {
    if (!request.is404) rejectUnstorableText(request.body);
    done();
  });

  const hasher = new PasswordHasher(options.hashing);
  const accounts = new AccountService(ctx, hasher, config.appName);

  registerHealthRoutes(app, new Readiness(ctx));
  registerAuthRoutes(app, ctx, accounts, new PasswordResetService(ctx, accounts));
  registerEmailVerificationRoutes(app, ctx, new EmailVerificationService(ctx, app.log));
  registerUserRoutes(app, ctx, hasher);
  registerAccessRoutes(app, ctx);
  registerOperationLogRoutes(app, ctx);
  // Identity (docs/api.md section 14): the routes exist under every REGULATION; `br` gates money on them.
  const verifiers = builtInVerifiers();
  app.decorate('identityVerifiers', verifiers);
  registerIdentityRoutes(app, ctx, new IdentityService(ctx, verifiers, clock));
  registerReportRoutes(app, new ReportService(ctx));
  // Responsible gambling (docs/api.md section 14): the routes exist under every REGULATION; `br` enforces them.
  const responsible = new ResponsibleGambling(ctx, clock);
  registerLimitRoutes(app, responsible);
  if (config.regulation === 'br') ctx.sessions.sessionEnd = (userId, signedInAt) => responsible.sessionEnd(userId, signedInAt);
  // A session past its end takes the game sessions launched from it along (src/modules/games/launch/session-end.ts).
  ctx.sessions.sessionEnded = (session) => endGameSessions(db, session.userId, session.signedInAt, 0);
  registerBankRoutes(app, ctx);
  registerWalletRoutes(app, ctx, new WalletService(ctx));
  registerSettingsRoutes(app, new SettingsService(ctx));
  // API Pix clients per payment method, rebuilt when a method changes on any instance.
  const pixMethods = new PixMethods(db, keys, {
    bus: invalidation,
    onUnusable: (method, problems) =>
      app.log.error({ paymentMethodId: method.id, code: method.code, problems }, 'payment method configuration no longer works'),
  });
  app.decorate('pixMethods', pixMethods);
  const gateways = builtInGateways(config, pixMethods);
  app.decorate('paymentGateways', gateways.payments);
  app.decorate('payoutGateways', gateways.payouts);
  registerPaymentRoutes(app, ctx, gateways.payments);
  const topups = new TopupService(ctx, gateways.payments, responsible);
  registerTopupRoutes(app, ctx, topups);
  registerPixRoutes(app, ctx, pixMethods);
  // Payouts: the method that pays (a setting every instance reads from the database), the
  // request and its outcome, and the reconciliation that asks the PSP (docs/withdrawals.md).
  const payoutMethod = new PayoutMethodService(ctx, gateways.payouts);
  const payouts = new PayoutService(ctx, gateways.payouts);
  registerPayoutMethodRoutes(app, payoutMethod);
  registerWithdrawalRoutes(app, ctx, new WithdrawalService(ctx, gateways.payouts, payoutMethod, payouts));
  // Items of a PIX notification that name a send (Efí's payouts) are the payouts' to confirm.
  app.pixNotifications.handlers.push({
    accepts: (item) => payouts.acceptsNotification(item),
    handle: async (method, item, log) => {
      await payouts.handleNotification(method, item, log);
    },
  });
  const payoutReconciler = new PayoutReconciler(ctx, payouts, app.log);
  app.decorate('payouts', payouts);
  app.decorate('payoutReconciler', payoutReconciler);
  app.addHook('onReady', async () => payoutReconciler.start());
  app.addHook('onClose', () => payoutReconciler.stop());
  registerPayPageRoutes(app, ctx, topups);
  registerReferralRoutes(app, ctx, new ReferralService(ctx));
  const storage = new LocalDiskStorage(config.dataDir);
  const gameAdapters = builtInAdapters();
  for (const adapter of options.gameAdapters ?? []) gameAdapters.register(adapter);
  app.decorate('gameAdapters', gameAdapters);
  // The seamless wallet's callbacks, the rounds they record, and the demo provider's game, which
  // calls the wallet through this app's own router (docs/games.md, "Demo game").
  registerProviderCallbackRoutes(app, new ProviderCallbacks(ctx, gameAdapters), gameAdapters);
  registerProviderBetRoutes(app, ctx, new ProviderBetService(db));
  registerHeldWinRoutes(app, ctx, new HeldWinService(ctx));
  registerDemoGameRoutes(app, ctx, new DemoGameServer(ctx, new DemoWalletClient((request) => app.inject(request))));
  registerCatalogueRoutes(app, ctx, { catalogue: new Catalogue(ctx), adapters: gameAdapters, storage });
  registerLaunchRoutes(app, new LaunchService(ctx, gameAdapters, responsible));
  registerAdminGameSessionRoutes(app, ctx);
  registerUploadRoutes(app, ctx, new UploadService(ctx, storage));
  registerStorageRoutes(app, storage);
  // Draw games (issue 10): player and admin routes (the in-house games' among them), and the
  // scheduler started when the app is ready.
  registerDrawRoutes(app, ctx, new DrawService(ctx, clock, responsible));
  registerGameAdminRoutes(app, ctx);
  registerDrawScheduler(app, ctx, clock);
  // The back office (web/admin/, built at install): static files on the API's own origin.
  registerBackOfficeRoutes(app, ctx);
  options.extraRoutes?.(app, ctx);

  scheduleHousekeeping(app, [ctx.sessions, ctx.limiter, new GameSessionPruner(db, config.regulation), new ProviderRequestPruner(db)]);
  app.addHook('onClose', async () => {
    await app.requestsDrained();
    pixMethods.close();
    ctx.mailer.close();
    await ctx.invalidation.close();
    if (redis !== undefined) await closeRedis(redis);
  });
  return app;
}
