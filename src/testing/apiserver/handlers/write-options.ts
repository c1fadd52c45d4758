/**
 * The query parameters every write shares: `dryRun` and `fieldManager` (defaulted from the User-Agent).
 */
import type { IncomingMessage } from 'node:http';
import { badRequest, invalid } from '../status.ts';

/** Whether the write is a dry run (`dryRun=All`); any other value is a 400. */
export function dryRunOf(q: URLSearchParams): boolean {
  const values = q.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw badRequest(`Invalid dry run value: ${v}`);
  return values.length > 0;
}

/** Pulls the manager name out of a User-Agent, as kube-apiserver does: the product before the first '/'. */
export function managerFromUserAgent(ua: string | undefined): string {
  const s = (ua ?? '').split('/')[0]!.trim();
  return s === '' ? 'unknown' : s.slice(0, 128);
}

/** The field manager of a write: `fieldManager` (at most 128 characters), else from the User-Agent. */
export function fieldManager(q: URLSearchParams, req: IncomingMessage): string {
  const m = q.get('fieldManager');
  if (m !== null && m !== '') {
    if (m.length > 128) throw invalid('meta.k8s.io', 'UpdateOptions', '', [{ reason: 'FieldValueTooLong', field: 'fieldManager', message: 'Too long: may not be longer than 128' }]);
    return m;
  }
  return managerFromUserAgent(req.headers['user-agent']);
}
