/**
 * The contract between `kubeloom rbac learn` and the processes it runs: an environment variable naming
 * the file every embedded API server of the process tree appends its requests to, and the User-Agent
 * mark a Manager's client adds in that mode so the operator's requests can be told from the test's own
 * setup requests (audit2rbac selects by user in an audit log; a test suite usually runs everything as
 * one admin, so kubeloom selects by client instead). No imports: the API server and the manager both
 * read it.
 */

/** The environment variable `kubeloom rbac learn` sets: the JSON-lines file requests are appended to. */
export const rbacLearnEnv = 'KUBELOOM_RBAC_LEARN_FILE';

/** The word a Manager's client appends to its User-Agent while learning (`kubeloom/0.1.0 (node/24.9.0) kubeloom-manager`). */
export const managerUserAgentMark = 'kubeloom-manager';

/** The file requests are recorded to, when this process runs under `kubeloom rbac learn`. */
export function rbacLearnFile(): string | undefined {
  const file = process.env[rbacLearnEnv];
  return file === undefined || file === '' ? undefined : file;
}

/** The User-Agent a Manager's client sends while learning: the configured one with the mark appended. */
export function managerUserAgent(userAgent: string): string {
  return userAgent.includes(managerUserAgentMark) ? userAgent : `${userAgent} ${managerUserAgentMark}`;
}
