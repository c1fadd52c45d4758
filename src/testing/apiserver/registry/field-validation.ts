/**
 * fieldValidation (`Strict`, `Warn`, `Ignore`; `Warn` when unset, as since v1.27): unknown fields (for custom
 * resources, the fields pruning removed) and duplicate fields of a JSON body, reported as kube-apiserver reports
 * them (k8s.io/apiserver/pkg/endpoints/handlers/rest.go and the strict decoders): Strict fails with 400
 * `strict decoding error: unknown field "spec.x", duplicate field "y"`; Warn adds one Warning header
 * `299 - "unknown field \"spec.x\""` per field. Built-in kinds have no schemas here, so only their duplicate
 * fields are detected.
 */
import { StatusError, newStatus, StatusReason } from '../../../apimachinery/errors.ts';

/** The three fieldValidation directives. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The directive of a request; 400 for any other value. */
export function fieldValidationOf(q: URLSearchParams): FieldValidation {
  const v = q.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw new StatusError(newStatus(400, StatusReason.BadRequest, `fieldValidation must be one of "Ignore", "Warn", or "Strict", got "${v}"`));
}

/**
 * The paths of keys that occur twice in the same JSON object of `text`, in order of their second occurrence
 * (`spec.size`, `metadata.labels.a`, `spec.list[1].x`). Malformed JSON yields what was found before the fault.
 */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return text.slice(start + 1, i - 1);
    }
  };
  const value = (path: string, depth: number): void => {
    ws();
    if (depth > 1000) throw new Error('too deep');
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      while (i < text.length) {
        ws();
        if (text[i] !== '"') throw new Error('bad key');
        const k = str();
        const p = path === '' ? k : `${path}.${k}`;
        if (seen.has(k)) out.push(p);
        seen.add(k);
        ws();
        if (text[i] !== ':') throw new Error('bad colon');
        i++;
        value(p, depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        throw new Error('bad object');
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; i < text.length; n++) {
        value(`${path}[${n}]`, depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        throw new Error('bad array');
      }
    } else if (c === '"') str();
    else while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
  };
  try {
    value('', 0);
  } catch {
    // a malformed body fails decoding elsewhere
  }
  return out;
}

/** The strict decoding problems of a request: unknown fields first, then duplicates. */
export function fieldProblems(unknown: readonly string[], duplicates: readonly string[]): string[] {
  return [...unknown.map((f) => `unknown field "${f}"`), ...duplicates.map((f) => `duplicate field "${f}"`)];
}

/** 400 for Strict requests with problems, as the strict decoder fails them. */
export function strictDecodingError(kind: string, version: string, problems: readonly string[]): StatusError {
  return new StatusError(newStatus(400, StatusReason.BadRequest, `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${problems.join(', ')}`));
}

/** The Warning header values of problems (RFC 7234 warn-code 299, no agent). */
export function warningHeaders(problems: readonly string[]): string[] {
  return problems.map((p) => `299 - ${JSON.stringify(p)}`);
}
