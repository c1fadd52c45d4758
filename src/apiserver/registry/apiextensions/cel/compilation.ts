/**
 * Compiling the x-kubernetes-validations rules of a structural schema
 * (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go): one CEL environment per schema
 * with the schema's types and the Kubernetes libraries, `self` (and `oldSelf`) typed as the node the rule
 * sits on, each rule parsed and type-checked to a bool, messageExpression to a string. Errors are worded as
 * cel-go's (`ERROR: <input>:1:5: undefined field 'y'` with the caret line), so the CRD is refused as upstream
 * refuses it; compiled programs are metered (see cost.ts).
 */
import { Environment } from '@marcbachmann/cel-js';
import { additionalOf, isObj, itemsOf, type JSONSchemaProps, type ValidationRule } from '../schema/json-schema-props.ts';
import { CostMeter, estimateCost, meterAst, type CelAstNode } from './cost.ts';
import { registerKubernetesLibrary } from './library.ts';
import { SchemaTypes } from './types.ts';

/** A compiled program: evaluates with `self` and `oldSelf` bound. */
export type CelProgram = (vars: Record<string, unknown>) => unknown;

/** One compiled rule of a schema node. */
export interface CompiledRule {
  readonly rule: ValidationRule;
  /** The compile error (cel-go's wording), when the rule does not compile. */
  readonly error?: { kind: 'compile' | 'type'; detail: string };
  readonly program?: CelProgram;
  readonly messageProgram?: CelProgram;
  readonly messageError?: string;
  /** The rule reads oldSelf: it runs only on updates where an old value exists. */
  readonly transition: boolean;
  /** Estimated cost of one evaluation. */
  readonly estimatedCost: number;
}

/** The compiled rules of one schema tree, by schema node. */
export class CompiledSchema {
  readonly rules = new Map<JSONSchemaProps, CompiledRule[]>();
  readonly types: SchemaTypes;
  /** The meter every program of this schema charges. */
  readonly meter = new CostMeter();

  constructor(types: SchemaTypes) {
    this.types = types;
  }
}

// cel-js's messages for the failures cel-go words differently, with the offset cel-go points at: the dot of
// a field selection, the operator of a binary expression.
function celGoIssue(source: string, message: string, start: number | undefined): { message: string; at: number | undefined } {
  const first = message.split('\n')[0]!;
  let m = /^No such key: (.*)$/.exec(first);
  if (m !== null) return { message: `undefined field '${m[1]}'`, at: start === undefined ? undefined : Math.max(0, source.lastIndexOf('.', start)) };
  m = /^no such overload: (\S+) (==|!=|<|<=|>|>=|\+|-|\*|\/|%|in) (\S+)$/.exec(first);
  if (m !== null) {
    const op = source.indexOf(m[2]!, start ?? 0);
    return { message: `found no matching overload for '_${m[2]}_' applied to '(${m[1]}, ${m[3]})'`, at: op < 0 ? start : op };
  }
  return { message: first, at: start };
}

// ERROR: <input>:line:column: message, then the source line and a caret, as cel-go renders issues.
function formatIssue(source: string, message: string, start: number | undefined): string {
  const offset = Math.max(0, Math.min(start ?? 0, source.length));
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart;
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${'.'.repeat(column)}^`;
}

function errorStart(err: unknown): number | undefined {
  const range = (err as { range?: { start?: number } } | undefined)?.range;
  return typeof range?.start === 'number' ? range.start : undefined;
}

function usesOldSelf(n: unknown, seen = new Set<object>()): boolean {
  if (typeof n !== 'object' || n === null || seen.has(n)) return false;
  seen.add(n);
  const node = n as CelAstNode;
  if (node.op === 'id' && node.args === 'oldSelf') return true;
  if (Array.isArray(n)) return n.some((x) => usesOldSelf(x, seen));
  if ('op' in node) return usesOldSelf(node.args, seen) || usesOldSelf(node.meta?.alternate, seen) || usesOldSelf(node.meta?.macro, seen);
  return Object.values(n).some((x) => usesOldSelf(x, seen));
}

interface Parsed {
  (vars: Record<string, unknown>): unknown;
  ast: CelAstNode;
  check(): { valid: boolean; type?: string; error?: Error };
}

function compileOne(env: Environment, source: string, want: string): { program?: Parsed; error?: { kind: 'compile' | 'type'; detail: string } } {
  let parsed: Parsed;
  try {
    parsed = env.parse(source) as unknown as Parsed;
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return { error: { kind: 'compile', detail: `compilation failed: ${formatIssue(source, `Syntax error: ${msg.split('\n')[0]!}`, errorStart(err))}` } };
  }
  const checked = parsed.check();
  if (!checked.valid) {
    const issue = celGoIssue(source, checked.error?.message ?? 'type check failed', errorStart(checked.error));
    return { error: { kind: 'compile', detail: `compilation failed: ${formatIssue(source, issue.message, issue.at)}` } };
  }
  if (checked.type !== want && checked.type !== 'dyn') return { error: { kind: 'type', detail: want === 'bool' ? 'cel expression must evaluate to a bool' : `must evaluate to ${want}` } };
  return { program: parsed };
}

/** Compiles every rule in a version's schema; never throws (rules that do not compile carry their error). */
export function compileSchema(root: JSONSchemaProps): CompiledSchema {
  const base = new Environment({ limits: { maxAstNodes: 10_000, maxDepth: 250, maxListElements: 1_000, maxMapEntries: 1_000, maxCallArguments: 32 } });
  registerKubernetesLibrary(base);
  const types = new SchemaTypes(base);
  const compiled = new CompiledSchema(types);
  const nodes: { schema: JSONSchemaProps; path: string; isRoot: boolean }[] = [];
  const collect = (s: JSONSchemaProps, path: string, isRoot: boolean): void => {
    if ((s['x-kubernetes-validations'] ?? []).length > 0) nodes.push({ schema: s, path, isRoot });
    for (const [k, p] of Object.entries(s.properties ?? {})) if (isObj(p)) collect(p, `${path}.${k}`, false);
    const items = itemsOf(s);
    if (items !== undefined) collect(items, `${path}.@`, false);
    const additional = additionalOf(s);
    if (additional !== undefined) collect(additional, `${path}.@`, false);
  };
  collect(root, 'Object', true);
  const selfTypes = nodes.map((n) => types.typeOf(n.schema, n.path, n.isRoot));
  nodes.forEach((n, i) => {
    const env = base.clone();
    env.registerVariable('self', selfTypes[i]!);
    env.registerVariable('oldSelf', selfTypes[i]!);
    const rules: CompiledRule[] = [];
    for (const rule of n.schema['x-kubernetes-validations'] ?? []) {
      const source = typeof rule.rule === 'string' ? rule.rule : '';
      const r = compileOne(env, source, 'bool');
      let messageProgram: CelProgram | undefined;
      let messageError: string | undefined;
      if (typeof rule.messageExpression === 'string' && rule.messageExpression !== '') {
        const m = compileOne(env, rule.messageExpression, 'string');
        if (m.error !== undefined) messageError = m.error.kind === 'type' ? 'must evaluate to string' : `messageExpression ${m.error.detail}`;
        else if (m.program !== undefined) {
          meterAst(m.program.ast, compiled.meter);
          messageProgram = m.program;
        }
      }
      if (r.program !== undefined) meterAst(r.program.ast, compiled.meter);
      rules.push({
        rule,
        ...(r.error === undefined ? {} : { error: r.error }),
        ...(r.program === undefined ? {} : { program: r.program }),
        ...(messageProgram === undefined ? {} : { messageProgram }),
        ...(messageError === undefined ? {} : { messageError }),
        transition: r.program !== undefined && usesOldSelf(r.program.ast),
        estimatedCost: r.program === undefined ? 0 : estimateCost(r.program.ast, n.schema),
      });
    }
    compiled.rules.set(n.schema, rules);
  });
  return compiled;
}
