/**
 * `npm test` builds the console for the browser tests in the background of its unit step (scripts/test.mjs), on
 * the CPU the unit tests leave idle, into the folder the browser tests serve (`WEB_DIST`); their step then skips its
 * own build (E2E_SKIP_BUILD=true), which took 5-6 s of it here before any test ran.
 */
import { buildWeb } from './server.ts';

buildWeb();
