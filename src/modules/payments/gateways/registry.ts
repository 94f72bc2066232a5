import type { Config } from '../../../config.ts';
import { PaymentGateways } from './gateway.ts';
import { PayoutGateways } from './payout.ts';
import { SandboxGateway } from './sandbox.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The payment gateways of this app (built in app.ts); tests may register their own. */
    paymentGateways: PaymentGateways;
    /** The payout gateways (built in app.ts); tests may register their own. */
    payoutGateways: PayoutGateways;
  }
}

/** The gateways every instance has: the built-in sandbox, configured from the environment, for payments and payouts. */
export function builtInGateways(config: Config): { payments: PaymentGateways; payouts: PayoutGateways } {
  const sandbox = new SandboxGateway({
    secret: config.paymentSandboxSecret,
    pixKey: config.pixKey,
    merchantName: config.pixMerchantName,
    merchantCity: config.pixMerchantCity,
  });
  return { payments: new PaymentGateways([sandbox]), payouts: new PayoutGateways([sandbox], sandbox.code) };
}
