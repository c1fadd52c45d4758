/**
 * Validation of core/v1 kinds, following `pkg/apis/core/validation/validation.go`: pods and pod
 * templates (containers, ports, resources, policies), services, config maps, secrets, namespaces,
 * service accounts and the other core kinds' essential rules. It covers the rules clients commonly
 * meet; docs/apiserver-fidelity.md lists what is checked.
 */
import { compareQuantities, parseQuantity, QuantityFormatError } from '../../../apimachinery/quantity.ts';
import { isIP } from 'node:net';
import { deepEqual, isObject } from '../../object-meta.ts';
import { duplicate, FieldPath, forbiddenField, invalidValue, notFoundField, notSupported, path, required, tooLong, type FieldError } from './field.ts';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isDNS1035Label, isQualifiedName } from './names.ts';
import { validateLabels } from './object-meta.ts';

type Obj = Record<string, unknown>;

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

const protocols = ['SCTP', 'TCP', 'UDP'];

function validatePortNumber(port: unknown, fld: FieldPath): FieldError[] {
  if (typeof port !== 'number' || port < 1 || port > 65535) return [invalidValue(fld, port ?? 0, 'must be between 1 and 65535, inclusive')];
  return [];
}

// ResourceList quantities: non-negative, requests at most limits.
function validateResources(res: unknown, fld: FieldPath): FieldError[] {
  if (!isObject(res)) return [];
  const out: FieldError[] = [];
  const parsed: Record<string, Record<string, ReturnType<typeof parseQuantity>>> = { limits: {}, requests: {} };
  for (const kind of ['limits', 'requests'] as const) {
    const m = res[kind];
    if (!isObject(m)) continue;
    for (const [name, q] of Object.entries(m)) {
      const f = fld.child(kind).key(name);
      if (!name.includes('/') && !['cpu', 'memory', 'ephemeral-storage', 'storage'].includes(name) && !name.startsWith('hugepages-')) {
        for (const msg of isQualifiedName(name)) out.push(invalidValue(f, name, msg));
      }
      try {
        const v = parseQuantity(String(q));
        if (v.nanos < 0n) out.push(invalidValue(f, String(q), 'must be greater than or equal to 0'));
        parsed[kind]![name] = v;
      } catch (err) {
        if (!(err instanceof QuantityFormatError)) throw err;
      }
    }
  }
  for (const [name, request] of Object.entries(parsed.requests!)) {
    const limit = parsed.limits![name];
    if (limit !== undefined && compareQuantities(request, limit) > 0) {
      out.push(invalidValue(fld.child('requests'), String((res.requests as Obj)[name]), `must be less than or equal to ${name} limit`));
    }
  }
  return out;
}

function validateContainer(c: Obj, fld: FieldPath, names: Set<string>): FieldError[] {
  const out: FieldError[] = [];
  const name = str(c.name);
  if (name === '') out.push(required(fld.child('name')));
  else {
    for (const m of isDNS1123Label(name)) out.push(invalidValue(fld.child('name'), name, m));
    if (names.has(name)) out.push(duplicate(fld.child('name'), name));
    names.add(name);
  }
  if (str(c.image).trim() === '') out.push(required(fld.child('image')));
  list(c.ports).forEach((p, i) => {
    const pf = fld.child('ports').index(i);
    if (p.containerPort === undefined || p.containerPort === 0) out.push(required(pf.child('containerPort')));
    else out.push(...validatePortNumber(p.containerPort, pf.child('containerPort')));
    if (typeof p.hostPort === 'number' && p.hostPort !== 0) out.push(...validatePortNumber(p.hostPort, pf.child('hostPort')));
    if (p.name !== undefined && p.name !== '') {
      const pn = str(p.name);
      if (pn.length > 15 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(pn) || !/[a-z]/.test(pn)) out.push(invalidValue(pf.child('name'), pn, 'must be no more than 15 characters, contain only lowercase alphanumeric characters and "-", start and end with an alphanumeric character and contain at least one letter'));
    }
    if (str(p.protocol) === '') out.push(required(pf.child('protocol')));
    else if (!protocols.includes(str(p.protocol))) out.push(notSupported(pf.child('protocol'), p.protocol, protocols));
  });
  list(c.env).forEach((e, i) => {
    if (str(e.name) === '') out.push(required(fld.child('env').index(i).child('name')));
  });
  out.push(...validateResources(c.resources, fld.child('resources')));
  const policy = str(c.terminationMessagePolicy);
  if (policy === '') out.push(required(fld.child('terminationMessagePolicy'), 'must be \'File\' or \'FallbackToLogsOnError\''));
  else if (policy !== 'File' && policy !== 'FallbackToLogsOnError') out.push(invalidValue(fld.child('terminationMessagePolicy'), policy, 'must be \'File\' or \'FallbackToLogsOnError\''));
  const pull = str(c.imagePullPolicy);
  if (pull === '') out.push(required(fld.child('imagePullPolicy')));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pull)) out.push(notSupported(fld.child('imagePullPolicy'), pull, ['Always', 'IfNotPresent', 'Never']));
  return out;
}

/** ValidatePodSpec (the checks this server makes). */
export function validatePodSpec(spec: Obj, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  const names = new Set<string>();
  const volumes = new Set<string>();
  list(spec.volumes).forEach((v, i) => {
    const name = str(v.name);
    const vf = fld.child('volumes').index(i);
    if (name === '') out.push(required(vf.child('name')));
    else {
      for (const m of isDNS1123Label(name)) out.push(invalidValue(vf.child('name'), name, m));
      if (volumes.has(name)) out.push(duplicate(vf.child('name'), name));
      volumes.add(name);
    }
  });
  const containers = list(spec.containers);
  if (containers.length === 0) out.push(required(fld.child('containers')));
  containers.forEach((c, i) => out.push(...validateContainer(c, fld.child('containers').index(i), names)));
  list(spec.initContainers).forEach((c, i) => out.push(...validateContainer(c, fld.child('initContainers').index(i), names)));
  out.push(...validateEphemeralContainers(list(spec.ephemeralContainers), names, fld.child('ephemeralContainers')));
  const restart = str(spec.restartPolicy);
  if (restart === '') out.push(required(fld.child('restartPolicy')));
  else if (!['Always', 'OnFailure', 'Never'].includes(restart)) out.push(notSupported(fld.child('restartPolicy'), restart, ['Always', 'OnFailure', 'Never']));
  const dns = str(spec.dnsPolicy);
  if (dns === '') out.push(required(fld.child('dnsPolicy')));
  else if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dns)) out.push(notSupported(fld.child('dnsPolicy'), dns, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  if (isObject(spec.nodeSelector)) out.push(...validateLabels(spec.nodeSelector as Record<string, string>, fld.child('nodeSelector')));
  if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds <= 0) out.push(invalidValue(fld.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) out.push(invalidValue(fld.child('terminationGracePeriodSeconds'), spec.terminationGracePeriodSeconds, 'must be greater than or equal to 0'));
  const sa = str(spec.serviceAccountName);
  if (sa !== '') for (const m of isDNS1123Subdomain(sa)) out.push(invalidValue(fld.child('serviceAccountName'), sa, m));
  return out;
}

// The container fields an ephemeral container may not set (allowedEphemeralContainerFields).
const ephemeralForbidden: readonly string[] = ['ports', 'resources', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

function isSet(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.values(v).some(isSet);
  return true;
}

/** validateEphemeralContainers: named, targets an existing container, a valid container without the fields ephemeral containers may not have. */
function validateEphemeralContainers(ephemeral: Obj[], names: ReadonlySet<string>, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  const all = new Set(names);
  ephemeral.forEach((ec, i) => {
    const f = fld.index(i);
    const target = str(ec.targetContainerName);
    if (target !== '' && !names.has(target)) out.push(notFoundField(f.child('targetContainerName'), target));
    const name = str(ec.name);
    if (name === '') {
      out.push(required(f, 'ephemeralContainer requires a name'));
      return;
    }
    // Checked as a one-container list, so the paths carry an index of 0 (as upstream's do).
    out.push(...validateContainer(ec, f.index(0), new Set()));
    if (all.has(name)) out.push(duplicate(f.child('name'), name));
    else all.add(name);
    for (const key of ephemeralForbidden) if (isSet(ec[key])) out.push(forbiddenField(f.child(key), 'cannot be set for an Ephemeral Container'));
    list(ec.volumeMounts).forEach((vm, j) => {
      if (str(vm.subPath) !== '') out.push(forbiddenField(f.child('volumeMounts').index(j).child('subPath'), 'cannot be set for an Ephemeral Container'));
      if (str(vm.subPathExpr) !== '') out.push(forbiddenField(f.child('volumeMounts').index(j).child('subPathExpr'), 'cannot be set for an Ephemeral Container'));
    });
  });
  return out;
}

/**
 * ValidatePodEphemeralContainersUpdate (spec part): the pod still valid, and the ephemeral containers
 * it had neither removed nor changed.
 */
export function validatePodEphemeralContainersUpdate(pod: Obj, old: Obj): FieldError[] {
  const out = validatePod(pod);
  const fld = path('spec', 'ephemeralContainers');
  const now = new Map(list(isObject(pod.spec) ? pod.spec.ephemeralContainers : undefined).map((c) => [str(c.name), c]));
  for (const before of list(isObject(old.spec) ? old.spec.ephemeralContainers : undefined)) {
    const name = str(before.name);
    const after = now.get(name);
    if (after === undefined) out.push(forbiddenField(fld, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (JSON.stringify(after) !== JSON.stringify(before)) out.push(forbiddenField(fld, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
  }
  return out;
}

/** ValidatePodTemplateSpec (labels and spec of a workload's template). */
export function validatePodTemplateSpec(template: unknown, fld: FieldPath): FieldError[] {
  if (!isObject(template)) return [required(fld)];
  const out: FieldError[] = [];
  const meta = isObject(template.metadata) ? template.metadata : {};
  out.push(...validateLabels(isObject(meta.labels) ? (meta.labels as Record<string, string>) : undefined, fld.child('labels')));
  out.push(...validatePodSpec(isObject(template.spec) ? template.spec : {}, fld.child('spec')));
  return out;
}

/** ValidatePod (spec part). */
export function validatePod(pod: Obj): FieldError[] {
  return validatePodSpec(isObject(pod.spec) ? pod.spec : {}, path('spec'));
}

const podUpdateForbidden =
  'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/**
 * ValidatePodUpdate (pkg/apis/core/validation/validation.go): besides images and a few fields, a pod's spec
 * is immutable. In upstream's order: the pod's own validation; containers added or removed
 * (`spec.containers: Forbidden`, and nothing more is checked) and empty images; activeDeadlineSeconds
 * (0..MaxInt32, only lowered, never unset); tolerations (only additions); scheduling gates (only removals, as
 * v1.27+); then every other change, `spec: Forbidden` (upstream appends a Go diff of the spec, left out here).
 */
export function validatePodUpdate(pod: Obj, old: Obj): FieldError[] {
  const out = validatePod(pod);
  const newSpec = isObject(pod.spec) ? pod.spec : {};
  const oldSpec = isObject(old.spec) ? old.spec : {};
  const specPath = path('spec');
  for (const key of ['containers', 'initContainers']) {
    const now = list(newSpec[key]);
    const before = list(oldSpec[key]);
    if (now.length !== before.length) return [...out, forbiddenField(specPath.child(key), 'pod updates may not add or remove containers')];
    now.forEach((c, i) => {
      if (typeof c.image !== 'string' || c.image === '') out.push(required(specPath.child(key).index(i).child('image')));
    });
  }
  const deadline = newSpec.activeDeadlineSeconds;
  if (typeof deadline === 'number') {
    if (deadline < 0 || deadline > 2147483647) return [...out, invalidValue(specPath.child('activeDeadlineSeconds'), deadline, 'must be between 0 and 2147483647, inclusive')];
    if (typeof oldSpec.activeDeadlineSeconds === 'number' && oldSpec.activeDeadlineSeconds < deadline) return [...out, invalidValue(specPath.child('activeDeadlineSeconds'), deadline, 'must be less than or equal to previous value')];
  } else if (typeof oldSpec.activeDeadlineSeconds === 'number') out.push(invalidValue(specPath.child('activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'));
  // validateOnlyAddedTolerations: every old toleration is still there (its tolerationSeconds may change).
  const newTolerations = list(newSpec.tolerations);
  for (const t of list(oldSpec.tolerations)) {
    const found = newTolerations.some((n) => deepEqual(withoutUndefined({ ...t, tolerationSeconds: n.tolerationSeconds }), withoutUndefined(n)));
    if (!found) {
      out.push(forbiddenField(specPath.child('tolerations'), 'existing toleration can not be modified except its tolerationSeconds'));
      break;
    }
  }
  // validateOnlyDeletedSchedulingGates (v1.27+): no gate may be added.
  const oldGates = new Set(list(oldSpec.schedulingGates).map((g) => g.name));
  list(newSpec.schedulingGates).forEach((g, i) => {
    if (!oldGates.has(g.name)) out.push(forbiddenField(specPath.child('schedulingGates').index(i).child('name'), `only deletion is allowed, but found new scheduling gate '${String(g.name)}'`));
  });
  // Munge what may change to its old value, then compare.
  const munged = structuredClone(newSpec);
  for (const key of ['containers', 'initContainers']) {
    const before = list(oldSpec[key]);
    list(munged[key]).forEach((c, i) => {
      c.image = before[i]!.image;
    });
  }
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.tolerations = oldSpec.tolerations;
  munged.schedulingGates = oldSpec.schedulingGates;
  // terminationGracePeriodSeconds may only go from a negative value to 1.
  if (typeof oldSpec.terminationGracePeriodSeconds === 'number' && oldSpec.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;
  if (!deepEqual(withoutUndefined(munged), withoutUndefined(oldSpec))) out.push(forbiddenField(specPath, podUpdateForbidden));
  return out;
}

function withoutUndefined(o: Obj): Obj {
  return JSON.parse(JSON.stringify(o)) as Obj;
}

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

/** ValidateService (the checks this server makes). */
export function validateService(svc: Obj): FieldError[] {
  const out: FieldError[] = [];
  const spec = isObject(svc.spec) ? svc.spec : {};
  const fld = path('spec');
  const type = str(spec.type);
  if (type === '') out.push(required(fld.child('type')));
  else if (!serviceTypes.includes(type)) out.push(notSupported(fld.child('type'), type, serviceTypes));
  const ports = list(spec.ports);
  const headless = spec.clusterIP === 'None';
  if (type === 'ExternalName') {
    const name = str(spec.externalName);
    if (name === '') out.push(required(fld.child('externalName')));
    else for (const m of isDNS1123Subdomain(name.replace(/\.$/, ''))) out.push(invalidValue(fld.child('externalName'), name, m));
  } else if (ports.length === 0 && !headless) out.push(required(fld.child('ports')));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const pf = fld.child('ports').index(i);
    const name = str(p.name);
    if (ports.length > 1 && name === '') out.push(required(pf.child('name')));
    else if (name !== '') {
      for (const m of isDNS1123Label(name)) out.push(invalidValue(pf.child('name'), name, m));
      if (names.has(name)) out.push(duplicate(pf.child('name'), name));
      names.add(name);
    }
    out.push(...validatePortNumber(p.port, pf.child('port')));
    if (!protocols.includes(str(p.protocol))) out.push(notSupported(pf.child('protocol'), p.protocol ?? '', protocols));
    const target = p.targetPort;
    if (typeof target === 'number') out.push(...validatePortNumber(target, pf.child('targetPort')));
    else if (typeof target === 'string' && (target.length > 15 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(target))) out.push(invalidValue(pf.child('targetPort'), target, 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'));
    if (typeof p.nodePort === 'number' && p.nodePort !== 0 && type !== 'NodePort' && type !== 'LoadBalancer') out.push(forbiddenField(pf.child('nodePort'), 'may not be used when `type` is \'ClusterIP\''));
  });
  // validateServiceClusterIPsRelatedFields: every cluster IP but None must be an IP (the allocator checks the range).
  if (type !== 'ExternalName') {
    (Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]) : []).forEach((ip, i) => {
      if (ip !== 'None' && (typeof ip !== 'string' || isIP(ip) === 0)) out.push(invalidValue(fld.child('clusterIPs').index(i), ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    });
  }
  if (isObject(spec.selector)) out.push(...validateLabels(spec.selector as Record<string, string>, fld.child('selector')));
  return out;
}

/** ValidateServiceUpdate: the cluster IP of a service does not change. */
export function validateServiceUpdate(svc: Obj, old: Obj): FieldError[] {
  const out = validateService(svc);
  const spec = isObject(svc.spec) ? svc.spec : {};
  const oldSpec = isObject(old.spec) ? old.spec : {};
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && typeof oldSpec.clusterIP === 'string' && oldSpec.clusterIP !== '' && spec.clusterIP !== oldSpec.clusterIP) {
    out.push(invalidValue(path('spec', 'clusterIPs').index(0), spec.clusterIP ?? '', 'may not change once set'));
  }
  return out;
}

// ConfigMap and Secret data: at most 1 MiB in total (MaxSecretSize).
const maxDataSize = 1024 * 1024;

/** ValidateConfigMap. */
export function validateConfigMap(cm: Obj): FieldError[] {
  const out: FieldError[] = [];
  let size = 0;
  const data = isObject(cm.data) ? cm.data : {};
  const binary = isObject(cm.binaryData) ? cm.binaryData : {};
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) out.push(invalidValue(path('data').key(k), k, m));
    if (k in binary) out.push(invalidValue(path('data').key(k), k, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(k) + Buffer.byteLength(str(v));
  }
  for (const [k, v] of Object.entries(binary)) {
    for (const m of isConfigMapKey(k)) out.push(invalidValue(path('binaryData').key(k), k, m));
    size += Buffer.byteLength(k) + Buffer.from(str(v), 'base64').length;
  }
  // The size error of a ConfigMap is reported on an empty path, which prints as "[]".
  if (size > maxDataSize) out.push(tooLong(new FieldPath('[]'), maxDataSize));
  return out;
}

// ValidateConfigMapUpdate / ValidateSecretUpdate: once immutable, `immutable` itself first, then each data field.
function immutableData(obj: Obj, old: Obj, keys: readonly string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const out: FieldError[] = [];
  if (obj.immutable !== true) out.push(forbiddenField(path('immutable'), 'field is immutable when `immutable` is set'));
  for (const k of keys) if (JSON.stringify(obj[k] ?? null) !== JSON.stringify(old[k] ?? null)) out.push(forbiddenField(path(k), 'field is immutable when `immutable` is set'));
  return out;
}

/** ValidateConfigMapUpdate. */
export function validateConfigMapUpdate(cm: Obj, old: Obj): FieldError[] {
  return [...immutableData(cm, old, ['data', 'binaryData']), ...validateConfigMap(cm)];
}

/** ValidateSecret. */
export function validateSecret(secret: Obj): FieldError[] {
  const out: FieldError[] = [];
  const data = isObject(secret.data) ? secret.data : {};
  let size = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) out.push(invalidValue(path('data').key(k), k, m));
    size += Buffer.from(str(v), 'base64').length;
  }
  if (size > maxDataSize) out.push(tooLong(path('data'), maxDataSize));
  const meta = isObject(secret.metadata) ? secret.metadata : {};
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  switch (secret.type) {
    case 'kubernetes.io/service-account-token':
      if (str(annotations['kubernetes.io/service-account.name']) === '') out.push(required(path('metadata', 'annotations').key('kubernetes.io/service-account.name')));
      break;
    case 'kubernetes.io/dockercfg':
      if (!('.dockercfg' in data)) out.push(required(path('data').key('.dockercfg')));
      break;
    case 'kubernetes.io/dockerconfigjson':
      if (!('.dockerconfigjson' in data)) out.push(required(path('data').key('.dockerconfigjson')));
      break;
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one must be there; without both, both are required.
      if (!('username' in data) && !('password' in data)) out.push(required(path('data').key('username')), required(path('data').key('password')));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!('ssh-privatekey' in data)) out.push(required(path('data').key('ssh-privatekey')));
      break;
    case 'kubernetes.io/tls':
      if (!('tls.crt' in data)) out.push(required(path('data').key('tls.crt')));
      if (!('tls.key' in data)) out.push(required(path('data').key('tls.key')));
      break;
  }
  return out;
}

/** ValidateSecretUpdate: type is immutable, and data when immutable is set. */
export function validateSecretUpdate(secret: Obj, old: Obj): FieldError[] {
  const out: FieldError[] = [];
  if (secret.type !== old.type) out.push(invalidValue(path('type'), secret.type ?? '', 'field is immutable'));
  out.push(...immutableData(secret, old, ['data']));
  out.push(...validateSecret(secret));
  return out;
}

/** The service names used in Service selectors and DNS: DNS-1035 labels. */
export function validateServiceName(name: string, prefix: boolean): string[] {
  return isDNS1035Label(prefix && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);
}

/** ValidatePersistentVolumeClaim (the essentials). */
export function validatePersistentVolumeClaim(pvc: Obj): FieldError[] {
  const spec = isObject(pvc.spec) ? pvc.spec : {};
  const out: FieldError[] = [];
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) out.push(required(path('spec', 'accessModes'), 'at least 1 access mode is required'));
  const requests = isObject(spec.resources) && isObject(spec.resources.requests) ? spec.resources.requests : {};
  if (requests.storage === undefined) out.push(required(path('spec', 'resources').key('storage')));
  return out;
}
