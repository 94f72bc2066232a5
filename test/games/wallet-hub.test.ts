import { hubDriver } from './helpers.ts';
import { walletConformance } from './conformance.ts';

// The same kit through a second wire format (test/games/hub-adapter.ts): the rules do not move with the adapter.
walletConformance(hubDriver);
