import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import { PaymentGateways } from './gateway.ts';
import { SandboxGateway } from './sandbox.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The payment gateways of this app; tests may register their own. */
    paymentGateways: PaymentGateways;
  }
}

/** The app's gateway registry, created with the built-in sandbox on first use. */
export function gatewaysOf(app: FastifyInstance, ctx: AppContext): PaymentGateways {
  if (!app.hasDecorator('paymentGateways')) {
    const sandbox = new SandboxGateway({
      secret: ctx.config.paymentSandboxSecret,
      pixKey: ctx.config.pixKey,
      merchantName: ctx.config.pixMerchantName,
      merchantCity: ctx.config.pixMerchantCity,
    });
    app.decorate('paymentGateways', new PaymentGateways([sandbox]));
  }
  return app.paymentGateways;
}
