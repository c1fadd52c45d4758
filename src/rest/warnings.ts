/**
 * `Warning` response headers (rest.WarningHandler): the API server sends deprecation notices and
 * field-validation warnings as RFC 7234 warning headers with code 299.
 */

/** One parsed warning header (net.WarningHeader). */
export interface WarningHeader {
  /** The warn-code, 299 for API server warnings. */
  code: number;
  /** The warn-agent, usually `-`. */
  agent: string;
  /** The warning text. */
  text: string;
}

/** Receives the warnings of every response (rest.WarningHandler). */
export interface WarningHandler {
  /** Called once per Warning header of a response. */
  handleWarning(warning: WarningHeader): void;
}

/** Drops every warning (rest.NoWarnings). */
export const noWarnings: WarningHandler = { handleWarning: () => undefined };

/**
 * Logs each distinct warning text once (kubectl's deduplicating handler), as `Warning: <text>`.
 * Writes to stderr unless another sink is given.
 */
export class WarningLogger implements WarningHandler {
  readonly #seen = new Set<string>();
  readonly #write: (line: string) => void;

  constructor(write: (line: string) => void = (line) => void process.stderr.write(line)) {
    this.#write = write;
  }

  /** Logs the warning (once per distinct text). */
  handleWarning(warning: WarningHeader): void {
    if (warning.code !== 299 || warning.text === '' || this.#seen.has(warning.text)) return;
    this.#seen.add(warning.text);
    this.#write(`Warning: ${warning.text}\n`);
  }
}

// warning-value = warn-code SP warn-agent SP warn-text [ SP warn-date ], several per header separated by commas.
const warningPattern = /\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?\s*(?:,|$)/y;

/**
 * Parses Warning header values (net.ParseWarningHeaders). Malformed values are skipped from the first
 * unparsable character on, as upstream, so a bad header never fails the request.
 */
export function parseWarningHeaders(values: readonly string[]): WarningHeader[] {
  const out: WarningHeader[] = [];
  for (const value of values) {
    warningPattern.lastIndex = 0;
    while (warningPattern.lastIndex < value.length) {
      const m = warningPattern.exec(value);
      if (m === null) break;
      out.push({ code: Number(m[1]), agent: m[2]!, text: m[3]!.replace(/\\(.)/g, '$1') });
    }
  }
  return out;
}
