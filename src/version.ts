/** The kubeloom package version, read from package.json (used in the User-Agent and the CLI). */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../package.json') as { version: string };

/** The version of this kubeloom package. */
export const kubeloomVersion: string = pkg.version;
