/**
 * certificates.k8s.io/v1 CertificateSigningRequests: the registry strategies of the main resource,
 * /status and /approval (`pkg/registry/certificates/certificates/strategy.go`) and their validation
 * (`pkg/apis/certificates/validation/validation.go`).
 *
 * - A create records who asked (spec.username, uid, groups, extra from the requesting user) and starts
 *   with an empty status; an update of the main resource changes neither spec nor status.
 * - /approval changes status.conditions only (Approved, Denied and others), stamping lastUpdateTime and
 *   lastTransitionTime where they are missing; /status changes the status but keeps the existing
 *   Approved and Denied conditions.
 * - Validation: spec.request must be a PEM CERTIFICATE REQUEST whose signature verifies, usages known,
 *   present and not repeated, signerName `domain/path`, expirationSeconds at least 600; conditions
 *   typed, Approved/Denied/Failed only True, Approved and Denied exclusive, no type twice; no condition
 *   of those three types removed; Approved and Denied added or changed only through /approval; the
 *   certificate set only through /status, and never replaced.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { isObject } from '../../object-meta.ts';
import { duplicate, forbiddenField, GoValue, invalidValue, notSupported, path, required, tooLong, type FieldError, type FieldPath } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../validation/names.ts';

type Obj = Record<string, unknown>;

/** The user a create is recorded for. */
export interface CsrRequester {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** The key usages certificates.k8s.io accepts, sorted as upstream lists them in errors. */
export const keyUsages: readonly string[] = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];

// Condition types that may only be True.
const trueOnlyTypes: ReadonlySet<string> = new Set(['Approved', 'Denied', 'Failed']);
// The legacy signer of certificates.k8s.io/v1beta1, refused by v1.
const legacyUnknownSigner = 'kubernetes.io/legacy-unknown';

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function conditionsOf(csr: Obj): Obj[] {
  return isObject(csr.status) ? list(csr.status.conditions) : [];
}

function specOf(csr: Obj): Obj {
  return isObject(csr.spec) ? csr.spec : {};
}

/** PrepareForCreate: the requester's identity into the spec, an empty status. */
export function prepareCsrForCreate(csr: Obj, user: CsrRequester | undefined): void {
  const spec = specOf(csr);
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (user !== undefined) {
    if (user.name !== '') spec.username = user.name;
    if (user.uid !== '') spec.uid = user.uid;
    if (user.groups.length > 0) spec.groups = [...user.groups];
    if (Object.keys(user.extra).length > 0) spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  }
  csr.spec = spec;
  csr.status = {};
}

/** PrepareForUpdate of the main resource: spec and status stay as they were. */
export function prepareCsrForUpdate(csr: Obj, old: Obj): void {
  keep(csr, old, 'spec');
  keep(csr, old, 'status');
}

function keep(obj: Obj, old: Obj, key: string): void {
  if (old[key] === undefined) delete obj[key];
  else obj[key] = structuredClone(old[key]);
}

/** populateConditionTimestamps: lastUpdateTime now where unset; lastTransitionTime from an old condition of the same type and status, else now. */
function populateConditionTimestamps(csr: Obj, old: Obj, now: string): void {
  const oldConditions = conditionsOf(old);
  for (const c of conditionsOf(csr)) {
    if (str(c.lastUpdateTime) === '') c.lastUpdateTime = now;
    if (str(c.lastTransitionTime) === '') {
      const same = oldConditions.find((o) => o.type === c.type && o.status === c.status && str(o.lastTransitionTime) !== '');
      c.lastTransitionTime = same !== undefined ? same.lastTransitionTime : now;
    }
  }
}

/** PrepareForUpdate of /approval: the new conditions, everything else from the old object. */
export function prepareCsrForApprovalUpdate(csr: Obj, old: Obj, now: string): void {
  populateConditionTimestamps(csr, old, now);
  const conditions = isObject(csr.status) ? csr.status.conditions : undefined;
  keep(csr, old, 'spec');
  const status: Obj = isObject(old.status) ? structuredClone(old.status) : {};
  if (conditions === undefined || conditions === null) delete status.conditions;
  else status.conditions = conditions;
  csr.status = status;
}

/** PrepareForUpdate of /status: the old spec; existing Approved and Denied conditions kept as they were. */
export function prepareCsrForStatusUpdate(csr: Obj, old: Obj, now: string): void {
  keep(csr, old, 'spec');
  const next = isObject(csr.status) && Array.isArray(csr.status.conditions) ? (csr.status.conditions as unknown[]) : [];
  const before = conditionsOf(old);
  for (const type of ['Approved', 'Denied']) {
    const oldIdx = before.flatMap((c, i) => (c.type === type ? [i] : []));
    const newIdx = next.flatMap((c, i) => (isObject(c) && c.type === type ? [i] : []));
    if (oldIdx.length !== newIdx.length) continue;
    oldIdx.forEach((o, i) => {
      next[newIdx[i]!] = structuredClone(before[o]!);
    });
  }
  populateConditionTimestamps(csr, old, now);
}

// --- The CSR's DER, as much as checking its signature needs. ---

class Asn1Error extends Error {}

interface Der {
  tag: number;
  /** The whole element, header included. */
  all: Buffer;
  /** The content. */
  body: Buffer;
}

function readDer(buf: Buffer, at: number): { el: Der; next: number } {
  if (at + 2 > buf.length) throw new Asn1Error('asn1: syntax error: truncated tag or length');
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || at + 2 + n > buf.length) throw new Asn1Error('asn1: syntax error: truncated tag or length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[at + 2 + i]!;
    header += n;
  }
  const end = at + header + len;
  if (end > buf.length) throw new Asn1Error('asn1: syntax error: data truncated');
  return { el: { tag, all: buf.subarray(at, end), body: buf.subarray(at + header, end) }, next: end };
}

function children(el: Der): Der[] {
  const out: Der[] = [];
  for (let at = 0; at < el.body.length; ) {
    const { el: c, next } = readDer(el.body, at);
    out.push(c);
    at = next;
  }
  return out;
}

function oid(el: Der): string {
  const b = el.body;
  if (b.length === 0) return '';
  const parts = [Math.floor(b[0]! / 40), b[0]! % 40];
  let v = 0;
  for (const byte of b.subarray(1)) {
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

// Signature algorithms x509 verifies a CSR with: digest for node's crypto.verify, and Go's failure message.
const signatureAlgorithms: Readonly<Record<string, { hash: string | null; failure: string }>> = {
  '1.2.840.113549.1.1.5': { hash: 'sha1', failure: 'crypto/rsa: verification error' },
  '1.2.840.113549.1.1.11': { hash: 'sha256', failure: 'crypto/rsa: verification error' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', failure: 'crypto/rsa: verification error' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', failure: 'crypto/rsa: verification error' },
  '1.2.840.10045.4.3.2': { hash: 'sha256', failure: 'x509: ECDSA verification failure' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', failure: 'x509: ECDSA verification failure' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', failure: 'x509: ECDSA verification failure' },
  '1.3.101.112': { hash: null, failure: 'x509: Ed25519 verification failure' },
};

/**
 * certificates.ParseCSR then CheckSignature: why `request` (the PEM bytes) is not a usable certificate
 * request, in Go's words, or undefined when it is.
 */
export function certificateRequestProblem(request: Buffer): string | undefined {
  const text = request.toString('latin1');
  const m = /-----BEGIN ([^\n-]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (m === null || m[1] !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const der = Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64');
  try {
    const { el: top } = readDer(der, 0);
    const [info, algorithm, signature] = children(top);
    if (top.tag !== 0x30 || info?.tag !== 0x30 || algorithm?.tag !== 0x30 || signature?.tag !== 0x03) throw new Asn1Error('asn1: structure error: tags don\'t match');
    const infoParts = children(info);
    const spki = infoParts[2];
    if (spki?.tag !== 0x30) throw new Asn1Error('asn1: structure error: tags don\'t match');
    const algorithmOid = oid(children(algorithm)[0] ?? { tag: 0, all: Buffer.alloc(0), body: Buffer.alloc(0) });
    const alg = signatureAlgorithms[algorithmOid];
    if (alg === undefined) return 'x509: cannot verify signature: algorithm unimplemented';
    let key: KeyObject;
    try {
      key = createPublicKey({ key: spki.all, format: 'der', type: 'spki' });
    } catch {
      return 'x509: unsupported elliptic curve';
    }
    // A BIT STRING's first content byte counts its unused bits.
    const ok = verify(alg.hash, info.all, key, signature.body.subarray(1));
    return ok ? undefined : alg.failure;
  } catch (err) {
    if (err instanceof Asn1Error) return err.message;
    return `asn1: syntax error: ${(err as Error).message}`;
  }
}

/** %#v of a []byte. */
function goBytes(b: Buffer): GoValue {
  return new GoValue(`[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`);
}

/** ValidateCertificateSigningRequestSignerName. */
function validateSignerName(fld: FieldPath, signerName: string): FieldError[] {
  if (signerName === '') return [required(fld, 'signerName must be provided')];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalidValue(fld, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const out: FieldError[] = [];
  const [domain, rest] = segments as [string, string];
  if (domain.length > 253) out.push(tooLong(fld, 253));
  const domainLabels = domain.split('.');
  for (const lbl of domainLabels) {
    const errs = isDNS1123Label(lbl);
    if (errs.length > 0) {
      for (const e of errs) out.push(invalidValue(fld, domain, `validating label ${JSON.stringify(lbl)}: ${e}`));
      break;
    }
  }
  if (domainLabels.length < 2) out.push(invalidValue(fld, domain, 'should be a domain with at least two segments separated by dots'));
  for (const lbl of rest.split('.')) {
    const errs = isDNS1123Subdomain(lbl);
    if (errs.length > 0) {
      for (const e of errs) out.push(invalidValue(fld, rest, `validating label ${JSON.stringify(lbl)}: ${e}`));
      break;
    }
  }
  const max = 253 + (253 + 63 + 1) + 1;
  if (signerName.length > max) out.push(tooLong(fld, max));
  return out;
}

/** validateCertificate: empty, or CERTIFICATE PEM blocks each holding certificates. */
function certificateProblem(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = [...pem.toString('latin1').matchAll(/-----BEGIN ([^\n-]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const b of blocks) if (b[1] !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(b[1])}`;
  return undefined;
}

/** What the old object relaxes (getValidationOptions): data already stored stays acceptable. */
interface CsrValidationOptions {
  approval: boolean;
  status: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowDuplicateUsages: boolean;
  allowUnknownUsages: boolean;
}

function bytesOf(v: unknown): Buffer {
  return typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0);
}

function validationOptions(csr: Obj, old: Obj | undefined, kind: 'main' | 'status' | 'approval'): CsrValidationOptions {
  const oldConditions = old === undefined ? [] : conditionsOf(old);
  const types = oldConditions.map((c) => str(c.type));
  const oldUsages = old === undefined ? [] : (Array.isArray(specOf(old).usages) ? (specOf(old).usages as unknown[]).map(String) : []);
  const newCert = isObject(csr.status) ? str(csr.status.certificate) : '';
  const oldCert = old !== undefined && isObject(old.status) ? str(old.status.certificate) : '';
  return {
    approval: kind === 'approval',
    status: kind === 'status',
    allowBothApprovedAndDenied: types.includes('Approved') && types.includes('Denied'),
    allowLegacySignerName: old !== undefined && specOf(old).signerName === legacyUnknownSigner,
    allowDuplicateConditionTypes: new Set(types).size !== types.length,
    allowEmptyConditionType: types.includes(''),
    allowArbitraryCertificate: old !== undefined && newCert === oldCert && certificateProblem(bytesOf(oldCert)) !== undefined,
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
    allowUnknownUsages: oldUsages.some((u) => !keyUsages.includes(u)),
  };
}

function validateCsr(csr: Obj, opts: CsrValidationOptions): FieldError[] {
  const out: FieldError[] = [];
  const spec = specOf(csr);
  const specPath = path('spec');
  const request = bytesOf(spec.request);
  const problem = certificateRequestProblem(request);
  if (problem !== undefined) out.push(invalidValue(specPath.child('request'), goBytes(request), problem));
  const usages = Array.isArray(spec.usages) ? spec.usages.map(String) : [];
  if (usages.length === 0) out.push(required(specPath.child('usages'), 'usages must be provided'));
  if (!opts.allowUnknownUsages) usages.forEach((u, i) => {
    if (!keyUsages.includes(u)) out.push(notSupported(specPath.child('usages').index(i), u, keyUsages));
  });
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) out.push(duplicate(specPath.child('usages').index(i), u));
      seen.add(u);
    });
  }
  const signerName = str(spec.signerName);
  if (!opts.allowLegacySignerName && signerName === legacyUnknownSigner) out.push(invalidValue(specPath.child('signerName'), signerName, 'the legacy signerName is not allowed via this API version'));
  else out.push(...validateSignerName(specPath.child('signerName'), signerName));
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) out.push(invalidValue(specPath.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  out.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const cert = certificateProblem(bytesOf(isObject(csr.status) ? csr.status.certificate : undefined));
    if (cert !== undefined) out.push(invalidValue(path('status', 'certificate'), '<certificate data>', cert));
  }
  return out;
}

function validateConditions(csr: Obj, opts: CsrValidationOptions): FieldError[] {
  const out: FieldError[] = [];
  const fld = path('status', 'conditions');
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(csr).forEach((c, i) => {
    const type = str(c.type);
    const status = str(c.status);
    if (!opts.allowEmptyConditionType && type === '') out.push(required(fld.index(i).child('type'), ''));
    const allowed = trueOnlyTypes.has(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (status === '') out.push(required(fld.index(i).child('status'), ''));
    else if (!allowed.includes(status)) out.push(notSupported(fld.index(i).child('status'), status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) out.push(invalidValue(fld.index(i).child('type'), type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) out.push(invalidValue(fld.index(i).child('type'), type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) out.push(duplicate(fld.index(i).child('type'), type));
      seen.add(type);
    }
  });
  return out;
}

/** ValidateCertificateSigningRequestCreate (metadata is validated by the caller). */
export function validateCsrCreate(csr: Obj): FieldError[] {
  return validateCsr(csr, validationOptions(csr, undefined, 'main'));
}

/** The update validations of the main resource, /status and /approval (metadata update rules are the caller's). */
export function validateCsrUpdate(csr: Obj, old: Obj, kind: 'main' | 'status' | 'approval'): FieldError[] {
  const opts = validationOptions(csr, old, kind);
  const out = validateCsr(csr, opts);
  const ofType = (o: Obj, t: string): Obj[] => conditionsOf(o).filter((c) => c.type === t);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (ofType(csr, t).length < ofType(old, t).length) out.push(forbiddenField(path('status', 'conditions'), `updates may not remove a condition of type ${JSON.stringify(t)}`));
  }
  if (!opts.approval) {
    for (const t of ['Approved', 'Denied']) {
      const before = ofType(old, t);
      const after = ofType(csr, t);
      if (after.length > before.length) out.push(forbiddenField(path('status', 'conditions'), `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (after.length === before.length && JSON.stringify(after) !== JSON.stringify(before)) out.push(forbiddenField(path('status', 'conditions'), `updates may not modify a condition of type ${JSON.stringify(t)}`));
    }
  }
  const newCert = isObject(csr.status) ? str(csr.status.certificate) : '';
  const oldCert = isObject(old.status) ? str(old.status.certificate) : '';
  if (newCert !== oldCert) {
    if (!opts.status) out.push(forbiddenField(path('status', 'certificate'), 'updates may not set certificate content'));
    else if (oldCert !== '') out.push(forbiddenField(path('status', 'certificate'), 'updates may not modify existing certificate content'));
  }
  return out;
}
