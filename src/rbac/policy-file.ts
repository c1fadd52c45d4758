/**
 * Reading and writing RBAC policy files: the multi-document YAML of kubebuilder's config/rbac/
 * (role.yaml's ClusterRole `manager-role`, leader_election_role.yaml's Role), and of
 * `kubeloom rbac learn`'s output (a ClusterRole, then the leader-election Role when Leases were used).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import type { ClusterRole, PolicyRule, Role } from '../api/rbac/v1.ts';
import { RbacPolicyError, sortRules } from './policy-rules.ts';

/** The roles found in policy files. */
export interface PolicyDocuments {
  /** The ClusterRoles, in file order. */
  clusterRoles: ClusterRole[];
  /** The Roles, in file order. */
  roles: Role[];
}

/** Reads the ClusterRoles and Roles of YAML files (other kinds are skipped); a missing file is an error. */
export async function readPolicyFiles(files: readonly string[]): Promise<PolicyDocuments> {
  const out: PolicyDocuments = { clusterRoles: [], roles: [] };
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new RbacPolicyError(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
    }
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new RbacPolicyError(`${file}: ${doc.errors[0]!.message}`);
      const obj = doc.toJSON() as { kind?: string } | null;
      if (obj?.kind === 'ClusterRole') out.clusterRoles.push(obj as ClusterRole);
      else if (obj?.kind === 'Role') out.roles.push(obj as Role);
    }
  }
  return out;
}

/** The rules of several roles, together. */
export function rulesOf(roles: readonly (ClusterRole | Role)[]): PolicyRule[] {
  return roles.flatMap((r) => r.rules ?? []);
}

// Field order as kubebuilder writes roles: apiVersion, kind, metadata, rules (apiGroups, resources, verbs).
function ordered(role: ClusterRole | Role): Record<string, unknown> {
  const rules = sortRules(role.rules ?? []).map((r) => ({
    ...(r.apiGroups !== undefined ? { apiGroups: r.apiGroups } : {}),
    ...(r.nonResourceURLs !== undefined ? { nonResourceURLs: r.nonResourceURLs } : {}),
    ...(r.resources !== undefined ? { resources: r.resources } : {}),
    ...(r.resourceNames !== undefined ? { resourceNames: r.resourceNames } : {}),
    verbs: r.verbs,
  }));
  return { apiVersion: role.apiVersion, kind: role.kind, metadata: role.metadata, rules };
}

/** The YAML of roles, one document each, after a comment header (each line prefixed with `# `). */
export function policyYaml(roles: readonly (ClusterRole | Role)[], header: readonly string[] = []): string {
  const head = header.map((l) => `# ${l}\n`).join('');
  return head + roles.map((r) => `---\n${stringify(ordered(r))}`).join('');
}

/** Writes {@link policyYaml} to a file, creating its folder. */
export async function writePolicyFile(file: string, roles: readonly (ClusterRole | Role)[], header: readonly string[] = []): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, policyYaml(roles, header));
}
