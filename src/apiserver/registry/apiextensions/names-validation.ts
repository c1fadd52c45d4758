/**
 * The format of a CRD's names, as apiextensions-apiserver's ValidateCustomResourceDefinitionNames
 * (`pkg/apis/apiextensions/validation/validation.go`): plural, singular, short names and categories are
 * DNS-1035 labels; kind and listKind may have mixed case but must otherwise be one; kind and listKind differ.
 */
import type { StatusCause } from '../../../api/meta/v1.ts';
import { isObject } from '../../object-meta.ts';
import { invalidCause } from '../../status.ts';
import { isDNS1035Label } from '../validation/names.ts';

const mixedCase = 'may have mixed case, but should otherwise match: ';

/** The causes for `names` (a CRD's spec.names or status.acceptedNames) at `path`, in upstream's order. */
export function validateCustomResourceDefinitionNames(names: unknown, path: string): StatusCause[] {
  const n = isObject(names) ? names : {};
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const out: StatusCause[] = [];
  const label = (field: string, value: string, prefix = '', check = value): void => {
    const errs = isDNS1035Label(check);
    if (value !== '' && errs.length > 0) out.push(invalidCause(`${path}.${field}`, value, prefix + errs.join(',')));
  };
  const kind = text(n.kind);
  const listKind = text(n.listKind);
  label('plural', text(n.plural));
  label('singular', text(n.singular));
  label('kind', kind, mixedCase, kind.toLowerCase());
  label('listKind', listKind, mixedCase, listKind.toLowerCase());
  const shortNames = Array.isArray(n.shortNames) ? n.shortNames : [];
  shortNames.forEach((s, i) => {
    const errs = isDNS1035Label(text(s));
    if (errs.length > 0) out.push(invalidCause(`${path}.shortNames[${i}]`, text(s), errs.join(',')));
  });
  // Otherwise parsing would be ambiguous.
  if (kind !== '' && kind === listKind) out.push(invalidCause(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  const categories = Array.isArray(n.categories) ? n.categories : [];
  categories.forEach((c, i) => {
    const errs = isDNS1035Label(text(c));
    if (errs.length > 0) out.push(invalidCause(`${path}.categories[${i}]`, text(c), errs.join(',')));
  });
  return out;
}
