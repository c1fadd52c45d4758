/**
 * CustomResourceDefinitions as kube-apiserver v1.24 stores them: in apiextensions.k8s.io/v1beta1, its storage
 * version until 1.26 (apiextensions-apiserver/pkg/apiserver/apiserver.go: the storage version of
 * customresourcedefinitions). The embedded server serves and keeps CRDs in v1, so a CRD read from etcd in
 * v1beta1 is converted up the way apiextensions' conversion functions take it through the internal version
 * (apis/apiextensions/v1beta1/conversion.go and v1/conversion.go):
 * - `spec.version` alone becomes the one served, storage version;
 * - the CRD-wide `validation`, `subresources` and `additionalPrinterColumns` go down to every version that
 *   has none of its own; a column's `JSONPath` is `jsonPath`;
 * - `conversion.webhookClientConfig` and `conversionReviewVersions` move under `conversion.webhook`;
 * - `preserveUnknownFields: false` is dropped (v1's default; v1 has no `true` for new CRDs).
 * A CRD the embedded server writes stays v1, which kube-apiserver reads too (any served version decodes).
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function column(c: unknown): unknown {
  if (!isObj(c)) return c;
  const { JSONPath, ...rest } = c;
  return JSONPath === undefined ? c : { ...rest, jsonPath: JSONPath };
}

/** A v1beta1 CustomResourceDefinition as v1 (others are returned as they are). */
export function crdToV1(crd: Obj): Obj {
  if (crd.apiVersion !== 'apiextensions.k8s.io/v1beta1' || !isObj(crd.spec)) return crd;
  const { version, validation, subresources, additionalPrinterColumns, versions, conversion, preserveUnknownFields, ...spec } = crd.spec;
  const list: Obj[] = Array.isArray(versions) && versions.length > 0 ? (versions as Obj[]) : typeof version === 'string' ? [{ name: version, served: true, storage: true }] : [];
  const out: Obj = { ...spec };
  out.versions = list.map((v) => {
    const r: Obj = { ...v };
    if (r.schema === undefined && validation !== undefined) r.schema = validation;
    if (r.subresources === undefined && subresources !== undefined) r.subresources = subresources;
    const cols = r.additionalPrinterColumns ?? additionalPrinterColumns;
    if (Array.isArray(cols)) r.additionalPrinterColumns = cols.map(column);
    return r;
  });
  if (isObj(conversion)) {
    const { webhookClientConfig, conversionReviewVersions, ...c } = conversion;
    out.conversion = webhookClientConfig === undefined ? c : { ...c, webhook: { clientConfig: webhookClientConfig, conversionReviewVersions: conversionReviewVersions ?? ['v1beta1'] } };
  }
  if (preserveUnknownFields === true) out.preserveUnknownFields = true;
  return { ...crd, apiVersion: 'apiextensions.k8s.io/v1', spec: out };
}
