/**
 * Reads the protobuf model's inputs (see proto-model.ts) from local bare git clones of k8s.io/api,
 * k8s.io/apimachinery and k8s.io/apiextensions-apiserver at one release tag: a folder holding
 * `kubernetes+api/repo`, `kubernetes+apimachinery/repo` and `kubernetes+apiextensions-apiserver/repo`.
 * Only `git show` / `git ls-tree` are run; nothing is written.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { InputReadError } from './errors.ts';
import { generatedHeader } from './generate.ts';
import { buildProtoModel, emitProtoModel, type ProtoInputPackage } from './proto-model.ts';

/** The release the committed model is derived from (k8s.io/api v0.34.x is Kubernetes 1.34). */
export const protoModelTag = 'v0.34.9';

interface Repo {
  repository: string;
  folder: string;
  /** Package folders to read, or a filter over every folder holding a generated.proto. */
  dirs: (all: string[]) => string[];
}

const repos: Repo[] = [
  { repository: 'kubernetes/api', folder: 'kubernetes+api', dirs: (all) => all },
  {
    repository: 'kubernetes/apimachinery',
    folder: 'kubernetes+apimachinery',
    dirs: () => ['pkg/apis/meta/v1', 'pkg/runtime', 'pkg/util/intstr', 'pkg/api/resource'],
  },
  { repository: 'kubernetes/apiextensions-apiserver', folder: 'kubernetes+apiextensions-apiserver', dirs: () => ['pkg/apis/apiextensions/v1'] },
];

function git(gitDir: string, args: string[]): string {
  try {
    return execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (err) {
    throw new InputReadError(gitDir, `git ${args.join(' ')} failed`, { cause: err });
  }
}

/** Every input package at `tag`, read from the bare repositories under `mirrorRoot`. */
export function readProtoInputs(mirrorRoot: string, tag: string = protoModelTag): ProtoInputPackage[] {
  const out: ProtoInputPackage[] = [];
  for (const repo of repos) {
    const gitDir = join(mirrorRoot, repo.folder, 'repo');
    const files = git(gitDir, ['ls-tree', '-r', '--name-only', tag]).split('\n');
    const protoDirs = files.filter((f) => f.endsWith('/generated.proto')).map((f) => f.slice(0, -'/generated.proto'.length));
    for (const dir of repo.dirs(protoDirs)) {
      const goFiles = files
        .filter((f) => f.startsWith(`${dir}/`) && !f.slice(dir.length + 1).includes('/') && f.endsWith('.go'))
        .filter((f) => !f.endsWith('_test.go') && !/\/(zz_generated|generated\.pb|types_swagger_doc_generated)/.test(f))
        .map((path) => ({ path, text: git(gitDir, ['show', `${tag}:${path}`]) }));
      // register.go's GroupName constant, else doc.go's +groupName tag.
      const register = goFiles.find((f) => f.path.endsWith('/register.go'))?.text ?? '';
      const doc = goFiles.find((f) => f.path.endsWith('/doc.go'))?.text ?? '';
      const groupName = /^\s*(?:const\s+)?GroupName\s*=\s*"([^"]*)"/m.exec(register)?.[1] ?? /^\/\/ \+groupName=(\S*)\s*$/m.exec(doc)?.[1];
      const served = repo.repository === 'kubernetes/api' || dir.startsWith('pkg/apis/');
      out.push({
        repository: repo.repository,
        dir,
        group: served ? (groupName ?? '') : undefined,
        proto: git(gitDir, ['show', `${tag}:${dir}/generated.proto`]),
        goFiles,
      });
    }
  }
  return out;
}

/** Where the committed model lives, relative to src/. */
export const protoModelPath = 'runtime/protobuf/generated/kubernetes-proto.ts';

/** The committed model's text for the packages at `tag` under `mirrorRoot`. */
export function generateProtoModelText(mirrorRoot: string, tag: string = protoModelTag): string {
  const packages = readProtoInputs(mirrorRoot, tag);
  const minor = Number(/^v0\.(\d+)\./.exec(tag)?.[1]);
  const model = buildProtoModel(packages, { repositories: repos.map((r) => r.repository), tag, kubernetesVersion: `1.${minor}` });
  return emitProtoModel(model, generatedHeader(`the generated.proto files and Go types of ${repos.map((r) => r.repository).join(', ')} at ${tag}`));
}
