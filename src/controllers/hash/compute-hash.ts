/**
 * controller.ComputeHash (pkg/controller/controller_utils.go, v1.24): the `pod-template-hash` label of a
 * Deployment's ReplicaSets and the `controller-revision-hash` of a DaemonSet's revisions. Upstream hashes
 * the Go `v1.PodTemplateSpec` with hashutil.DeepHashObject (pkg/util/hash/hash.go: go-spew `%#v` into
 * FNV-32a), then the collision count as eight bytes (a little-endian uint32 and four zero bytes), and
 * encodes the decimal sum with rand.SafeEncodeString. The go-spew text is emulated by
 * {@link spewSprintGoValue} over the Go layout in pod-template-spec-go-types.ts, so the value equals the
 * real controller manager's for the same stored template (pinned by testdata/pod-template-hashes.json).
 */

import { podTemplateSpecGoTypes } from './pod-template-spec-go-types.ts';
import { spewSprintGoValue } from './spew-format.ts';

// rand.SafeEncodeString's alphabet (apimachinery util/rand): no vowels, no 0/1/3.
const safeAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** rand.SafeEncodeString: every character mapped into the vowel-free alphabet. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += safeAlphabet[s.charCodeAt(i) % safeAlphabet.length];
  return out;
}

/** FNV-32a (hash/fnv New32a) over bytes, continuing from `h`. */
export function fnv32a(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const byte of bytes) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The go-spew `%#v` text of the `v1.PodTemplateSpec` a stored pod template (JSON form) decodes into. */
export function spewPodTemplateSpec(template: unknown): string {
  return spewSprintGoValue(podTemplateSpecGoTypes, 'v1.PodTemplateSpec', template);
}

/**
 * kube-controller-manager's ComputeHash of a pod template (as the API server stores it) and an optional
 * collision count. Throws SpewUnsupportedError for the few values whose Go print is not emulated (see
 * spew-format.ts).
 */
export function computePodTemplateHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(Buffer.from(spewPodTemplateSpec(template), 'utf8'));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(bytes, h);
  }
  return safeEncodeString(String(h));
}
