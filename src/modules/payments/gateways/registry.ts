import type { Config } from '../../../config.ts';
import { PaymentGateways } from './gateway.ts';
import { SandboxGateway } from './sandbox.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The payment gateways of this app (built in app.ts); tests may register their own. */
    paymentGateways: PaymentGateways;
  }
}

/** The gateways every instance has: the built-in sandbox, configured from the environment. */
export function builtInGateways(config: Config): PaymentGateways {
  const sandbox = new SandboxGateway({
    secret: config.paymentSandboxSecret,
    pixKey: config.pixKey,
    merchantName: config.pixMerchantName,
    merchantCity: config.pixMerchantCity,
  });
  return new PaymentGateways([sandbox]);
}
