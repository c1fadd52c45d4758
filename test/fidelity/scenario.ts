/**
 * The scenario language of the fidelity corpus: what a scenario is and which steps it may take.
 *
 * A scenario is a short story told to an API server — raw HTTP requests, watches and kubectl
 * commands — in a namespace of its own. Every string of a step may use these placeholders, filled in
 * at run time:
 *
 * - `{{ns}}`: the scenario's namespace (`fid-<slug>-<run token>`);
 * - `{{r}}`: the scenario's token (5 random lowercase characters), to make cluster-scoped names unique;
 * - `{{name}}`: a value saved by an earlier step's `save`.
 *
 * The answers are normalised (normalise.ts) and compared with the golden file recorded from a real
 * kube-apiserver (record.ts); replay.test.ts replays the corpus against the embedded server.
 */

/** A request body: a JSON value (sent as JSON unless `type` says otherwise), raw text or raw bytes. */
export type Body = unknown;

/** Shorthands for Content-Type. */
export const contentTypes = {
  json: 'application/json',
  yaml: 'application/yaml',
  protobuf: 'application/vnd.kubernetes.protobuf',
  merge: 'application/merge-patch+json',
  jsonpatch: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** What of an answer goes into the golden file. */
export type Keep =
  /** Status code, media type, warnings and the normalised body (default). */
  | 'all'
  /** Only the status code: for steps that set the scene. */
  | 'status';

/** One HTTP request and its answer. */
export interface HttpStep {
  /** `METHOD /path?query`, e.g. `GET /api/v1/namespaces/{{ns}}/configmaps?limit=1`. */
  req: string;
  /** The body: objects and arrays are sent as JSON (or as YAML for `type: 'apply'`/`'yaml'`), strings and bytes as they are. */
  body?: Body;
  /** Content-Type: one of {@link contentTypes}' keys, or a literal media type. */
  type?: keyof typeof contentTypes | (string & {});
  /** Accept header (none by default). */
  accept?: string;
  /** Other request headers. */
  headers?: Record<string, string>;
  /** Saves values of the JSON answer for later steps: placeholder name → dotted path (`metadata.resourceVersion`). */
  save?: Record<string, string>;
  /** Keeps only these dotted paths of the answer body (the rest of the body is dropped before comparison). */
  pick?: string[];
  /** What of the answer to record (default 'all'). */
  keep?: Keep;
  /** The answer is a list served in no defined order (the watch cache's `resourceVersion=0`): sort its items by name. */
  unordered?: boolean;
  /**
   * Repeats the request (every 100 ms, at most 30 s) until it answers with this status: for what a real
   * server does asynchronously (a new CRD's resource being served). Only the last answer is recorded.
   */
  until?: number;
}

/** One kubectl command, run with a kubeconfig whose context namespace is the scenario's. */
export interface KubectlStep {
  /** The arguments, split like a shell splits them (single and double quotes group). */
  kubectl: string;
  /** Text written to kubectl's standard input (for `-f -`). */
  stdin?: string;
  /** What of the answer to record (default 'all'). */
  keep?: Keep;
  /** Keeps only these dotted paths of JSON/YAML output. */
  pick?: string[];
}

/** Opens a watch; its events are read by later {@link EventsStep}s. The opening answer (status, media type) is recorded. */
export interface WatchStep {
  /** Name of the watch, referred to by `events`. */
  watch: string;
  /** `GET /path?watch=true&...`. */
  req: string;
  accept?: string;
  headers?: Record<string, string>;
}

/** Reads events of an open watch and records them. */
export interface EventsStep {
  /** The watch's name. */
  events: string;
  /** Read until this many events arrived (since the last `events` step). */
  count?: number;
  /** Read until the server ends the stream (timeoutSeconds), then record everything since the last read. */
  untilEnd?: boolean;
  /** The events come in no defined order (synthetic ADDED events of `resourceVersion=0`): sort them by type and name. */
  unordered?: boolean;
  /**
   * Leave BOOKMARK events out: kube-apiserver's watch cache sends between none and two pre-timeout bookmarks
   * depending on where its one-second timer buckets fall, so their number is no property of the API.
   */
  ignoreBookmarks?: boolean;
}

/** Waits a while (real time), e.g. for a bookmark before a watch's timeout. */
export interface SleepStep {
  sleepMs: number;
}

/** Any step. */
export type Step = HttpStep | KubectlStep | WatchStep | EventsStep | SleepStep;

/** One scenario of the corpus. */
export interface Scenario {
  /** Stable identifier `<area>/<name>`; the golden file is `golden/<area>/<name>.json`. */
  id: string;
  /** What it checks, in one sentence. */
  title: string;
  /** Whether the scenario gets a namespace of its own (default true). */
  namespace?: boolean;
  steps: Step[];
  /** Steps run after the scenario whatever happened (cluster-scoped objects); not recorded. */
  cleanup?: Step[];
  /**
   * Regular expressions whose matches in any recorded string are replaced by `{masked}` (values neither
   * side can predict, e.g. a global revision in a message).
   */
  masks?: RegExp[];
  /** Keys whose values are replaced by `{masked}` wherever they appear. */
  maskKeys?: string[];
  /**
   * Run when no other scenario runs: for answers that depend on cluster-wide state other scenarios change
   * (`kubectl api-resources` fails when a CRD group vanishes between its discovery requests).
   */
  alone?: boolean;
  /**
   * A feature gate v1.24 has off by default that the scenario needs (`CustomResourceValidationExpressions`):
   * the recorder runs it only when `--gates` names the gate, i.e. against a server started with it on.
   */
  gate?: string;
}

/** The area of a scenario: the part of its id before the slash. */
export function areaOf(s: Scenario): string {
  return s.id.slice(0, s.id.indexOf('/'));
}

/** Splits a command line like a shell: whitespace separates, single or double quotes group. */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let started = false;
  for (const ch of line) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) out.push(cur);
      cur = '';
      started = false;
    } else {
      cur += ch;
      started = true;
    }
  }
  if (quote !== undefined) throw new Error(`unterminated quote in: ${line}`);
  if (started) out.push(cur);
  return out;
}

/** Type guards for the step kinds. */
export const isHttp = (s: Step): s is HttpStep => 'req' in s && !('watch' in s);
export const isKubectl = (s: Step): s is KubectlStep => 'kubectl' in s;
export const isWatch = (s: Step): s is WatchStep => 'watch' in s;
export const isEvents = (s: Step): s is EventsStep => 'events' in s;
export const isSleep = (s: Step): s is SleepStep => 'sleepMs' in s;
