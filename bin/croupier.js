#!/usr/bin/env node
// The sources are TypeScript run by Node's own type stripping (Node >= 22.18 / 24), so there is no build step.
import { main } from '../src/cli.ts';

process.exitCode = await main(process.argv.slice(2));
