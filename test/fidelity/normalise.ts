/**
 * Turns a scenario run into its comparable form: what must match between the real kube-apiserver and
 * the embedded one, with everything either side chooses freely replaced by placeholders that keep
 * relations:
 *
 * - the namespace → `{ns}`, the run token → `{r}`;
 * - uids → `{uid:N}` and object resourceVersions → `{rv:N}`, numbered by first appearance, so equal
 *   values stay equal (a no-op update keeps its resourceVersion; a DELETED event carries the uid of the
 *   ADDED one); resourceVersions of lists, tables and bookmarks (a global revision other writers move)
 *   → `{list-rv}`;
 * - generated names → `<generateName>{gen:N}`; timestamps → `{time}` (`{microtime}` with fractions);
 *   IPv4 addresses → `{ip}`, node ports → `{nodePort}`, `127.0.0.1:<port>` → `127.0.0.1:{port}`;
 *   service account tokens → their decoded, normalised claims; continue tokens → their decoded content;
 * - kubectl tables: ages → `{age}`, column padding → two spaces.
 *
 * Traversal visits object keys in sorted order, so numbering does not depend on either server's key order.
 */
import { parse as parseYaml } from 'yaml';
import { decodeKubernetesProtobuf } from '../../src/apiserver/protobuf.ts';
import { splitArgs, type Scenario } from './scenario.ts';
import type { Observation, Run } from './runner.ts';

type Obj = Record<string, unknown>;

/** One normalised step. */
export interface NormalStep {
  /** The step as written in the scenario (placeholders unfilled). */
  step: string;
  status?: number;
  /** Media type of the answer. */
  type?: string;
  warnings?: string[];
  /** The answer was still streaming when the harness stopped reading (a watch). */
  streaming?: boolean;
  body?: unknown;
  exit?: number;
  stdout?: unknown;
  stderr?: unknown;
  events?: unknown[];
  ended?: boolean;
  skipped?: string;
}

/** The normalised form of a run: what a golden file holds. */
export interface Normalised {
  id: string;
  title: string;
  /** Set when the run failed before its end. */
  error?: string;
  steps: NormalStep[];
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const uuidPattern = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const timePattern = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;
const jwtPattern = /\beyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g;
const ipPattern = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
const loopbackPortPattern = /\b(127\.0\.0\.1|localhost):\d+/g;
// Numbers after "resource version", "ResourceVersion in ...", "resourceVersion:" in messages.
const rvInTextPattern = /(resource ?version(?: in [a-z ]+)?[:= (]*"?)(\d+)/gi;
// kubectl's human-readable durations in tables (5s, 2m3s, 10m, 3h, 2d5h, 45d).
/**
 * kubectl's last words on a failed command come in two forms, by build: `error: <message>` (cmdutil's
 * fatal printer) and, from builds that log it, a klog line `"command failed" err="<message>"`. Both are
 * the client's, not the server's: the klog form (after the header is masked) is rewritten to the plain one.
 */
export function plainKubectlFailure(text: string): string {
  return text.replace(/^\{klog\} "command failed" err="((?:[^"\\]|\\.)*)"$/gm, (_m, message: string) => `error: ${JSON.parse(`"${message}"`) as string}`);
}

// kubectl's (klog) log line header: severity, date, time, pid, file:line.
const klogPattern = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+:\d+\]/gm;
// Go pointer values printed with %#v.
const pointerPattern = /\b0xc[0-9a-f]{6,}\b/g;
// RFC 1123 dates as kubectl describe prints them.
const rfc1123Pattern = /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d [+-]\d{4}\b/g;
// Service ports as kubectl prints them: port:nodePort/protocol.
const nodePortPattern = /\b(\d+):\d{5}\/(TCP|UDP|SCTP)\b/g;
// The apiserver's name generator: generateName (cut to 58 characters) plus 5 characters of this alphabet.
const maxGeneratedPrefix = 58;
const generatedSuffix = '[bcdfghjklmnpqrstvwxz2456789]{5}';
// The content hash of an OpenAPI v3 group-version document in the root's URLs (the documents are compared themselves).
const openApiHashPattern = /\?hash=[0-9A-F]{128}\b/g;
const agePattern = /(?<=^|\s)(?:\d+[smhdy])(?:\d+[smh])?(?=\s|$)/g;

/** Options of {@link normaliseRun}. */
export interface NormaliseOptions {
  /** Scenario masks and the like. */
  scenario: Scenario;
}

class Context {
  readonly #exact: Array<[string, string]> = [];
  readonly #uids = new Map<string, string>();
  readonly #rvs = new Map<string, string>();
  readonly #masks: RegExp[];
  readonly #maskKeys: ReadonlySet<string>;
  readonly #prefixes: RegExp[] = [];

  constructor(run: Run) {
    this.#exact.push([run.namespace, '{ns}']);
    this.#exact.push([run.token, '{r}']);
    this.#masks = run.scenario.masks ?? [];
    this.#maskKeys = new Set(run.scenario.maskKeys ?? []);
    // generateName prefixes sent in request bodies: names made from them (even in error messages) are generated.
    const prefixes = new Set<string>();
    for (const o of run.observations) {
      if (o.kind !== 'http') continue;
      const body = o.step.body;
      const meta = isObj(body) ? body.metadata : undefined;
      if (isObj(meta) && typeof meta.generateName === 'string' && meta.generateName !== '') prefixes.add(meta.generateName.slice(0, maxGeneratedPrefix));
    }
    for (const p of prefixes) this.#prefixes.push(new RegExp(`${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${generatedSuffix}(?![a-z0-9])`, 'g'));
  }

  /** Registers a generated name (longest first when replacing). */
  generated(name: string, base: string): void {
    if (this.#exact.some(([v]) => v === name)) return;
    const n = this.#exact.filter(([, p]) => p.includes('{gen:')).length + 1;
    this.#exact.push([name, `${this.text(base)}{gen:${n}}`]);
    this.#exact.sort((a, b) => b[0].length - a[0].length);
  }

  rv(v: string): string {
    let p = this.#rvs.get(v);
    if (p === undefined) {
      p = `{rv:${this.#rvs.size + 1}}`;
      this.#rvs.set(v, p);
    }
    return p;
  }

  uid(v: string): string {
    let p = this.#uids.get(v);
    if (p === undefined) {
      p = `{uid:${this.#uids.size + 1}}`;
      this.#uids.set(v, p);
    }
    return p;
  }

  text(s: string): string {
    let out = s;
    for (const m of this.#masks) out = out.replace(new RegExp(m.source, m.flags.includes('g') ? m.flags : `${m.flags}g`), '{masked}');
    out = out.replace(openApiHashPattern, '?hash={hash}');
    out = out.replace(jwtPattern, (jwt) => `{jwt:${JSON.stringify(this.claims(jwt))}}`);
    out = out.replace(uuidPattern, (u) => this.uid(u));
    for (const p of this.#prefixes) {
      out = out.replace(p, (name) => {
        this.generated(name, name.slice(0, -5));
        return name;
      });
    }
    for (const [value, placeholder] of this.#exact) if (value !== '') out = out.split(value).join(placeholder);
    out = plainKubectlFailure(out.replace(klogPattern, '{klog}'));
    out = out.replace(pointerPattern, '{pointer}');
    out = out.replace(rfc1123Pattern, '{time}');
    out = out.replace(nodePortPattern, '$1:{nodePort}/$2');
    out = out.replace(timePattern, (_t, frac: string | undefined) => (frac === undefined ? '{time}' : '{microtime}'));
    out = out.replace(loopbackPortPattern, (_m, host: string) => `${host}:{port}`);
    out = out.replace(ipPattern, (ip) => (ip === '127.0.0.1' || ip === '0.0.0.0' ? ip : '{ip}'));
    out = out.replace(rvInTextPattern, (_m, head: string, n: string) => `${head}${this.#rvs.get(n) ?? this.rv(n)}`);
    return out;
  }

  claims(jwt: string): unknown {
    const [header, payload] = jwt.split('.');
    try {
      const h = JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')) as Obj;
      const p = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Obj;
      for (const k of ['exp', 'iat', 'nbf']) if (typeof p[k] === 'number') p[k] = '{epoch}';
      // A token's own id (jti) is random, and not a uid to relate.
      if (typeof p.jti === 'string') p.jti = '{jti}';
      // The key id and the signing algorithm follow the cluster's service account key (RSA or ECDSA), not the API.
      delete h.kid;
      delete h.alg;
      return this.value({ header: h, payload: p }, []);
    } catch {
      return 'undecodable';
    }
  }

  /** Normalises a JSON value; `path` is the list of keys leading to it. */
  value(v: unknown, path: readonly string[], parent?: Obj): unknown {
    if (this.#maskKeys.has(path[path.length - 1] ?? '') && v !== undefined) return '{masked}';
    if (typeof v === 'string') {
      const key = path[path.length - 1];
      if (key === 'resourceVersion') return this.resourceVersion(v, path, parent);
      if (key === 'continue' && v !== '') return this.continueToken(v);
      return this.text(v);
    }
    if (typeof v === 'number') {
      const key = path[path.length - 1];
      if (key === 'nodePort') return '{nodePort}';
      return v;
    }
    if (Array.isArray(v)) return v.map((x, i) => this.value(x, [...path, String(i)], parent));
    if (!isObj(v)) return v;
    if (Array.isArray(v.columnDefinitions) && Array.isArray(v.rows)) return this.table(v, path);
    const out: Obj = {};
    for (const k of Object.keys(v).sort()) out[this.text(k)] = this.value(v[k], [...path, k], v);
    return out;
  }

  resourceVersion(v: string, path: readonly string[], owner: Obj | undefined): string {
    if (v === '') return '';
    // `owner` is the metadata object; its parent decides. Lists, tables and bookmarks carry a global revision.
    const listLike = path.length >= 2 && this.#listContext.has(path.slice(0, -2).join('\u0000'));
    if (listLike) return '{list-rv}';
    void owner;
    return this.rv(v);
  }

  readonly #listContext = new Set<string>();

  /** Marks the object at `path` as a list, table or bookmark (its metadata.resourceVersion is a global revision). */
  markListLike(path: readonly string[]): void {
    this.#listContext.add(path.join('\u0000'));
  }

  continueToken(token: string): unknown {
    try {
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Obj;
      if (isObj(decoded) && typeof decoded.start === 'string') {
        const rv = typeof decoded.rv === 'number' ? (decoded.rv < 0 ? String(decoded.rv) : (this.#rvs.get(String(decoded.rv)) ?? '{list-rv}')) : 'none';
        return `{continue start=${JSON.stringify(this.text(decoded.start))} rv=${rv} v=${String(decoded.v)}}`;
      }
    } catch {
      // not a token we can read
    }
    return '{continue:opaque}';
  }

  table(t: Obj, path: readonly string[]): unknown {
    const columns = (t.columnDefinitions as Obj[]).map((c) => String(c.name));
    const ageColumns = new Set(columns.flatMap((c, i) => (ageColumnNames.has(c) ? [i] : [])));
    const copy: Obj = { ...t };
    this.markListLike(path);
    copy.rows = (t.rows as unknown[]).map((row) => {
      if (!isObj(row) || !Array.isArray(row.cells)) return row;
      return { ...row, cells: row.cells.map((c, i) => (ageColumns.has(i) && typeof c === 'string' ? '{age}' : c)) };
    });
    const out: Obj = {};
    for (const k of Object.keys(copy).sort()) out[k] = this.value(copy[k], [...path, k], copy);
    return out;
  }

  /** Registers generated names and list contexts before anything is rewritten. */
  prepass(v: unknown, path: readonly string[]): void {
    if (Array.isArray(v)) {
      v.forEach((x, i) => this.prepass(x, [...path, String(i)]));
      return;
    }
    if (!isObj(v)) return;
    if (Array.isArray(v.items) || v.kind === 'Table' || (typeof v.kind === 'string' && v.kind.endsWith('List'))) this.markListLike(path);
    const meta = v.metadata;
    if (isObj(meta) && typeof meta.generateName === 'string' && typeof meta.name === 'string') {
      const base = meta.generateName.slice(0, maxGeneratedPrefix);
      if (meta.name.startsWith(base) && meta.name.length === base.length + 5) this.generated(meta.name, base);
    }
    for (const k of Object.keys(v).sort()) this.prepass(v[k], [...path, k]);
  }
}

/** Splits a pick path on dots that are not escaped with a backslash. */
function pathParts(path: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i]!;
    if (ch === '\\' && path[i + 1] === '.') {
      cur += '.';
      i++;
    } else if (ch === '.') {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

/**
 * Keeps only the given dotted paths of a value. A segment may be `*` (every array element or key),
 * `[key=value]` (the array elements whose `key` equals `value`, kept under that segment as key; `[=value]`
 * for an array of scalars), or a
 * key with its dots escaped (`io\\.k8s\\.api`).
 */
const ageColumnNames: ReadonlySet<string> = new Set(['Age', 'Last Seen', 'Duration']);

/** A Table (meta.k8s.io) with the cells of its age-like columns replaced by `{age}`; anything else unchanged. */
function maskTableAges(v: unknown): unknown {
  if (!isObj(v) || !Array.isArray(v.columnDefinitions) || !Array.isArray(v.rows)) return v;
  const ages = new Set(v.columnDefinitions.flatMap((c, i) => (isObj(c) && ageColumnNames.has(String(c.name)) ? [i] : [])));
  return { ...v, rows: v.rows.map((row) => (isObj(row) && Array.isArray(row.cells) ? { ...row, cells: row.cells.map((c, i) => (ages.has(i) && typeof c === 'string' ? '{age}' : c)) } : row)) };
}

export function pick(v: unknown, paths: readonly string[]): unknown {
  // Segments are keys (strings) or array positions (numbers); arrays are rebuilt as arrays, compacted.
  type Seg = string | number;
  const out: Obj = {};
  const put = (parts: Seg[], value: unknown): void => {
    let cur: Obj | unknown[] = out;
    for (let i = 0; i < parts.length; i++) {
      const seg = parts[i]!;
      const last = i === parts.length - 1;
      const nextIsIndex = !last && typeof parts[i + 1] === 'number';
      const container = cur as Record<string | number, unknown>;
      if (last) container[seg] = value;
      else {
        const existing = container[seg];
        if (existing === undefined || typeof existing !== 'object' || existing === null) container[seg] = nextIsIndex ? [] : {};
        cur = container[seg] as Obj | unknown[];
      }
    }
  };
  const walk = (cur: unknown, parts: string[], done: Seg[]): void => {
    if (parts.length === 0) {
      put(done, cur);
      return;
    }
    const [head, ...rest] = parts as [string, ...string[]];
    if (head === '[]') {
      // The values at `rest` of every element, as one flat list (compared line by line).
      if (!Array.isArray(cur)) return;
      const values = cur.map((x) => (rest.length === 0 ? x : pick(x, [rest.join('.')]))).map((x) => flatten(x));
      put(done, values);
      return;
    }
    if (head === '*') {
      if (Array.isArray(cur)) cur.forEach((x, i) => walk(x, rest, [...done, i]));
      else if (isObj(cur)) for (const k of Object.keys(cur)) walk(cur[k], rest, [...done, k]);
      return;
    }
    const filter = /^\[([^=\]]*)=([^\]]*)\]$/.exec(head);
    if (filter !== null) {
      if (!Array.isArray(cur)) return;
      const key = filter[1]!;
      const found = cur.filter((x) => (key === '' ? String(x) === filter[2] : isObj(x) && String(x[key]) === filter[2]));
      if (found.length === 1) walk(found[0], rest, [...done, head]);
      else if (found.length > 1) found.forEach((x, i) => walk(x, rest, [...done, head, i]));
      else put([...done, head], '{absent}');
      return;
    }
    if (Array.isArray(cur)) {
      walk(cur[Number(head)], rest, [...done, Number(head)]);
      return;
    }
    if (!isObj(cur) || !(head in cur)) return;
    walk(cur[head], rest, [...done, head]);
  };
  for (const p of paths) walk(v, pathParts(p), []);
  const compact = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.filter((e) => e !== undefined).map(compact);
    if (isObj(x)) return Object.fromEntries(Object.entries(x).map(([k, e]) => [k, compact(e)]));
    return x;
  };
  return compact(out);
}

// The single leaf of a picked value (`{name: x}` → x).
function flatten(v: unknown): unknown {
  let cur = v;
  while (isObj(cur) && Object.keys(cur).length === 1) cur = cur[Object.keys(cur)[0]!];
  return cur;
}

/** Parses an answer body by its media type: JSON, YAML, Kubernetes protobuf or text. */
export function parseBody(contentType: string, body: Buffer): { type: string; value: unknown } {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (body.length === 0) return { type, value: undefined };
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      return { type, value: JSON.parse(body.toString('utf8')) };
    } catch {
      return { type, value: { unparsableJson: body.toString('utf8') } };
    }
  }
  if (type === 'application/yaml') {
    try {
      return { type, value: parseYaml(body.toString('utf8')) };
    } catch {
      return { type, value: { unparsableYaml: body.toString('utf8') } };
    }
  }
  if (type === 'application/vnd.kubernetes.protobuf') {
    try {
      return { type, value: { protobuf: decodeKubernetesProtobuf(body) } };
    } catch (err) {
      return { type, value: { protobufUndecodable: err instanceof Error ? err.message : String(err) } };
    }
  }
  const text = body.toString('utf8');
  // JSON served as text (kube-openapi's documents) is compared as JSON.
  if (type === 'text/plain' && /^\s*[{[]/.test(text)) {
    try {
      return { type, value: JSON.parse(text) as unknown };
    } catch {
      // not JSON after all
    }
  }
  // Text answers are compared line by line.
  return { type, value: text.split('\n') };
}

function isStructuredOutput(args: string[]): 'json' | 'yaml' | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = a === '-o' || a === '--output' ? args[i + 1] : a.startsWith('-o') ? a.slice(2).replace(/^=/, '') : a.startsWith('--output=') ? a.slice(9) : undefined;
    if (v === 'json' || v === 'yaml') return v;
  }
  return undefined;
}

// kubectl's discovery complaints about group versions that vanished meanwhile: other scenarios' CRDs
// coming and going while this one runs (not part of what any scenario checks).
const discoveryNoise = /couldn't get resource list for .*: the server could not find the requested resource/;

function tableLines(ctx: Context, text: string, ages: boolean): string[] {
  return text
    .split('\n')
    .filter((line) => !discoveryNoise.test(line))
    .map((line) => {
      let l = ctx.text(line);
      if (ages) l = l.replace(agePattern, '{age}');
      return l.replace(/ {2,}/g, '  ').replace(/\s+$/, '');
    })
    .filter((l, i, all) => !(l === '' && i === all.length - 1));
}

function nameOf(v: unknown): string {
  const meta = isObj(v) && isObj(v.metadata) ? v.metadata : {};
  const text = (x: unknown): string => (typeof x === 'string' ? x : '');
  return `${text(meta.namespace)}/${text(meta.name)}`;
}

/** A list whose items are sorted by namespace and name (for answers served in no particular order). */
function sortItems(v: unknown): unknown {
  if (!isObj(v) || !Array.isArray(v.items)) return v;
  return { ...v, items: [...v.items].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0)) };
}

function eventKey(e: unknown): string {
  return isObj(e) ? `${String(e.type)} ${nameOf(e.object)}` : '';
}

/** Normalises a whole run (see the file comment for the rules). */
export function normaliseRun(run: Run): Normalised {
  const ctx = new Context(run);
  const parsed = run.observations.map((o): unknown => {
    if (o.kind === 'http' || o.kind === 'watch') return parseBody(o.contentType, o.body).value;
    if (o.kind === 'events') return o.events;
    if (o.kind === 'kubectl') {
      const fmt = isStructuredOutput(splitArgs(o.label.slice('kubectl '.length)));
      if (fmt !== undefined && o.exit === 0) {
        try {
          return fmt === 'json' ? (JSON.parse(o.stdout) as unknown) : (parseYaml(o.stdout) as unknown);
        } catch {
          return undefined;
        }
      }
    }
    return undefined;
  });
  parsed.forEach((p, i) => {
    const o = run.observations[i]!;
    if (o.kind === 'events' && Array.isArray(p)) {
      p.forEach((e, j) => {
        if (isObj(e) && e.type === 'BOOKMARK') ctx.markListLike([String(i), String(j), 'object']);
      });
    }
    ctx.prepass(p, [String(i)]);
  });
  const steps = run.observations.map((o, i): NormalStep => {
    const p = parsed[i];
    switch (o.kind) {
      case 'http': {
        const { type } = parseBody(o.contentType, Buffer.alloc(0));
        const step: NormalStep = { step: o.label, status: o.status };
        if (o.step.keep === 'status') return step;
        step.type = type;
        if (o.warnings.length > 0) step.warnings = o.warnings.map((w) => ctx.text(w));
        if (o.timedOut) step.streaming = true;
        // Ages in Table cells are masked before a pick can drop the column definitions that name them.
        const ordered = maskTableAges(o.step.unordered === true ? sortItems(p) : p);
        const body = o.step.pick !== undefined && ordered !== undefined ? pick(ordered, o.step.pick) : ordered;
        if (body !== undefined) step.body = ctx.value(body, [String(i)]);
        return step;
      }
      case 'watch': {
        const step: NormalStep = { step: `watch ${o.label}`, status: o.status, type: parseBody(o.contentType, Buffer.alloc(0)).type };
        if (p !== undefined) step.body = ctx.value(p, [String(i)]);
        return step;
      }
      case 'events': {
        const events = ((ctx.value(p, [String(i)]) as unknown[]) ?? []).filter((e) => !(o.ignoreBookmarks && isObj(e) && e.type === 'BOOKMARK'));
        if (o.unordered) events.sort((a, b) => (eventKey(a) < eventKey(b) ? -1 : eventKey(a) > eventKey(b) ? 1 : 0));
        return { step: o.label, events, ...(o.ended ? { ended: true } : {}) };
      }
      case 'kubectl': {
        const step: NormalStep = { step: o.label, exit: o.exit };
        const keep = 'keep' in o.step ? o.step.keep : undefined;
        if (keep === 'status') return step;
        const pickPaths = 'pick' in o.step ? o.step.pick : undefined;
        if (p !== undefined) step.stdout = ctx.value(pickPaths !== undefined ? pick(p, pickPaths) : p, [String(i)]);
        else step.stdout = tableLines(ctx, o.stdout, true);
        step.stderr = tableLines(ctx, o.stderr, false);
        return step;
      }
      case 'skipped':
        return { step: o.label, skipped: o.why };
    }
    return { step: 'unknown' };
  });
  return { id: run.scenario.id, title: run.scenario.title, ...(run.error === undefined ? {} : { error: ctx.text(run.error) }), steps };
}

/** JSON with sorted keys and two-space indentation: the golden file format. */
export function stableJson(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (!isObj(x)) return x;
    const out: Obj = {};
    for (const k of Object.keys(x).sort()) out[k] = sort(x[k]);
    return out;
  };
  return `${JSON.stringify(sort(v), null, 2)}\n`;
}

export type { Observation };
