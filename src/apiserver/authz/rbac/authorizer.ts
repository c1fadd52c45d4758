/**
 * The RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go): allows a request when some rule that
 * applies to the user allows it, with the reason `RBAC: allowed by <binding>`; otherwise it has no
 * opinion, and its reason lists the errors met while resolving rules (`RBAC: role.rbac... not found`),
 * which the 403 message carries after the `User "x" cannot ...` sentence.
 */
import type { UserInfo } from '../../authn/user.ts';
import type { Authorizer, Decision, NonResourceRuleInfo, ResourceRuleInfo, RuleResolver as RulesReviewer } from '../authorizer.ts';
import type { Attributes } from '../request-info.ts';
import { ruleAllows } from './rules.ts';
import type { RuleResolver } from './rule-resolver.ts';

/** utilerrors.NewAggregate's message: one error as is, several as `[a, b]`. */
export function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/** Authorizes requests by RBAC rules, and lists a user's rules for SelfSubjectRulesReview. */
export class RbacAuthorizer implements Authorizer, RulesReviewer {
  readonly resolver: RuleResolver;

  constructor(resolver: RuleResolver) {
    this.resolver = resolver;
  }

  authorize(a: Attributes): Decision {
    let allowedBy: string | undefined;
    const errors: string[] = [];
    this.resolver.visitRulesFor(a.user, a.namespace, (source, rule, error) => {
      if (rule !== undefined && ruleAllows(a, rule)) {
        allowedBy = source;
        return false;
      }
      if (error !== undefined) errors.push(error);
      return true;
    });
    if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
    return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${aggregate(errors)}` };
  }

  rulesFor(user: UserInfo, namespace: string): { resourceRules: ResourceRuleInfo[]; nonResourceRules: NonResourceRuleInfo[]; incomplete: boolean; evaluationError: string } {
    const { rules, errors } = this.resolver.rulesFor(user, namespace);
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    for (const r of rules) {
      if ((r.resources ?? []).length > 0) {
        const info: ResourceRuleInfo = { verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])] };
        if ((r.resourceNames ?? []).length > 0) info.resourceNames = [...r.resourceNames!];
        resourceRules.push(info);
      }
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs!] });
    }
    return { resourceRules, nonResourceRules, incomplete: false, evaluationError: errors.length === 0 ? '' : aggregate(errors) };
  }
}
