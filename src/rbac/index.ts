/**
 * kubeloom/rbac: least-privilege RBAC for operators — rule sets as permissions (normalise, compact,
 * diff), rules learned from the requests an operator made to the embedded API server
 * (`kubeloom rbac learn`), and the check of declared against learned rules (`kubeloom rbac check`).
 * See docs/rbac.md.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { RbacPolicyError, atomKey, compactRules, describeAtom, diffRules, mergeRules, nonResourceAtoms, normalizeRules, ruleAtoms, rulesAgree, sortRules } from './policy-rules.ts';
export type { NonResourceAtom, RuleAtom, RulesDiff } from './policy-rules.ts';
export { defaultClusterRoleName, defaultLeaderElectionRoleName, isSelected, learnPolicy, readRequestRecords } from './learn.ts';
export type { LearnOptions, LearnedPolicy, RecordedRequest, RequestSelector } from './learn.ts';
export { checkPolicy, formatDisagreement } from './check.ts';
export type { Disagreement } from './check.ts';
export { policyYaml, readPolicyFiles, rulesOf, writePolicyFile } from './policy-file.ts';
export type { PolicyDocuments } from './policy-file.ts';
export { managerUserAgent, managerUserAgentMark, rbacLearnEnv, rbacLearnFile } from './learn-mode.ts';
