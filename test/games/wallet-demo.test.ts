import { demoDriver } from './helpers.ts';
import { walletConformance } from './conformance.ts';

walletConformance(demoDriver);
