/**
 * The differences between the embedded API server and kube-apiserver that the fidelity replay
 * tolerates, each with its reason and the upstream reference. docs/apiserver-fidelity.md lists them all.
 */
import type { Allowance } from './diff.ts';

/** Every tolerated difference. */
export const allowances: readonly Allowance[] = [];
