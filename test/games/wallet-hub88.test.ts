import { walletConformance } from './conformance.ts';
import { hub88Driver } from './hub88-driver.ts';
import { Hub88Simulator } from './hub88-simulator.ts';

// The same kit through Hub88's real protocol (adapter `hub88`, docs/api.md section 15), spoken by
// the Hub88 simulator: Hub88's paths, fields, units, RS_* statuses and RSA signatures.
walletConformance(hub88Driver(new Hub88Simulator()));
