/**
 * Several handlers behind one path (controller-runtime pkg/webhook/admission/multi.go). Mutating:
 * every handler sees the same request (patches are not applied between them), the first denial is
 * the answer, a handler answering with a patch type other than JSONPatch is a 500, and the answer
 * admits with all patches concatenated. Validating: the first denial is the answer, else admitted.
 * Warnings of every handler that ran are kept.
 */
import type { Response } from './response.ts';
import type { AdmissionRequest } from './types.ts';
import type { AdmissionContext, AdmissionHandler } from './webhook.ts';

// A denial keeps the warnings of the handlers that ran before it, first.
function earlierWarnings(r: Response, warnings: string[]): Response {
  return warnings.length === 0 ? r : { ...r, warnings: [...warnings, ...(r.warnings ?? [])] };
}

/** Combines mutating handlers into one whose patch is the concatenation of theirs. */
export function multiMutatingHandler(...handlers: AdmissionHandler[]): AdmissionHandler {
  return {
    async handle(request: AdmissionRequest, context: AdmissionContext): Promise<Response> {
      const patches: NonNullable<Response['patches']> = [];
      const warnings: string[] = [];
      for (const h of handlers) {
        const r = await h.handle(request, context);
        if (!r.allowed) return earlierWarnings(r, warnings);
        warnings.push(...(r.warnings ?? []));
        patches.push(...(r.patches ?? []));
      }
      return { allowed: true, result: { code: 200 }, patches, ...(warnings.length > 0 ? { warnings } : {}) };
    },
  };
}

/** Combines validating handlers: the first denial wins. */
export function multiValidatingHandler(...handlers: AdmissionHandler[]): AdmissionHandler {
  return {
    async handle(request: AdmissionRequest, context: AdmissionContext): Promise<Response> {
      const warnings: string[] = [];
      for (const h of handlers) {
        const r = await h.handle(request, context);
        if (!r.allowed) return earlierWarnings(r, warnings);
        warnings.push(...(r.warnings ?? []));
      }
      return { allowed: true, result: { code: 200 }, ...(warnings.length > 0 ? { warnings } : {}) };
    },
  };
}
