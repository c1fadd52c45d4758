/**
 * `kubeloom rbac learn -- <command…>` and `kubeloom rbac check`: least-privilege RBAC learned from a
 * test suite run against the embedded API server, and checked against the declared rules. See
 * docs/rbac.md.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from './commands.ts';
import { rbacLearnEnv, managerUserAgentMark } from '../rbac/learn-mode.ts';
import { learnPolicy, readRequestRecords, type LearnOptions } from '../rbac/learn.ts';
import { readPolicyFiles, writePolicyFile } from '../rbac/policy-file.ts';
import { checkPolicy, formatDisagreement } from '../rbac/check.ts';
import { ruleAtoms } from '../rbac/policy-rules.ts';

const defaultLearned = 'config/rbac/learned_role.yaml';
const defaultDeclared = ['config/rbac/role.yaml', 'config/rbac/leader_election_role.yaml'];

const usage = `usage: kubeloom rbac learn [flags] -- <command> [args...]
       kubeloom rbac check [flags]

learn: runs the command (e.g. \`npm test\`) with ${rbacLearnEnv} set, so every embedded API server
it starts (startApiServer) records the requests it serves; then writes the least-privilege rules of
the operator's requests — those of a Manager's client, whose User-Agent carries "${managerUserAgentMark}"
in that mode — as a ClusterRole, and the leader-election Leases as a Role.
      --out FILE           where the rules are written (default ${defaultLearned})
      --namespace NS       namespace of the leader-election Role (default: where the Leases were used)
      --user NAME          learn the requests of this user instead of the Manager's
      --user-agent TEXT    learn the requests whose User-Agent contains TEXT instead
      --record FILE        keep the raw request record (JSON lines) in FILE

check: compares the declared rules with the learned ones and exits 1 naming each permission used
but not granted, or granted but unused.
      --declared FILE      declared roles (repeatable; default ${defaultDeclared.join(' and ')} when present)
      --learned FILE       learned roles (default ${defaultLearned})
      --missing-only       fail only on permissions used but not granted
`;

function fail(message: string): number {
  process.stderr.write(`kubeloom rbac: ${message}\n${usage}`);
  return 2;
}

async function runCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolveExit, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'inherit', env });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolveExit(code ?? (signal !== null ? 128 : 1)));
  });
}

async function learn(args: string[]): Promise<number> {
  const dash = args.indexOf('--');
  const flags = dash < 0 ? args : args.slice(0, dash);
  const command = dash < 0 ? [] : args.slice(dash + 1);
  let values;
  try {
    values = parseArgs({
      args: flags,
      options: { out: { type: 'string' }, namespace: { type: 'string' }, user: { type: 'string' }, 'user-agent': { type: 'string' }, record: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }).values;
  } catch (err) {
    return fail((err as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  if (command.length === 0) return fail('name the command to run after --, e.g. kubeloom rbac learn -- npm test');
  const tmp = values.record === undefined ? await mkdtemp(join(tmpdir(), 'kubeloom-rbac-')) : undefined;
  const record = resolve(values.record ?? join(tmp!, 'requests.jsonl'));
  try {
    if (values.record !== undefined) await rm(record, { force: true });
    const code = await runCommand(command, { ...process.env, [rbacLearnEnv]: record });
    const options: LearnOptions = {};
    if (values.namespace !== undefined) options.namespace = values.namespace;
    if (values.user !== undefined) options.select = { user: values.user };
    else if (values['user-agent'] !== undefined) options.select = { userAgentContains: values['user-agent'] };
    const learned = learnPolicy(await readRequestRecords(record), options);
    const out = values.out ?? defaultLearned;
    const who = values.user !== undefined ? `user ${JSON.stringify(values.user)}` : `User-Agent containing ${JSON.stringify(values['user-agent'] ?? managerUserAgentMark)}`;
    await writePolicyFile(out, learned.role === undefined ? [learned.clusterRole] : [learned.clusterRole, learned.role], [
      `Learned by \`kubeloom rbac learn -- ${command.join(' ')}\` from the requests of the ${who}.`,
      'Regenerate rather than edit; `kubeloom rbac check` compares it with the declared rules.',
    ]);
    const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
    process.stdout.write(
      `kubeloom rbac learn: ${count(learned.recorded, 'distinct request')} recorded, ${learned.selected} from the ${who}` +
        (learned.allowedToEveryone > 0 ? ` (${learned.allowedToEveryone} allowed to every authenticated user, left out)` : '') +
        '\n' +
        `wrote ${out}: ClusterRole ${learned.clusterRole.metadata!.name!} (${count(ruleAtoms(learned.clusterRole.rules ?? []).length, 'permission')}, ${count((learned.clusterRole.rules ?? []).length, 'rule')})` +
        (learned.role === undefined ? '' : `, Role ${learned.role.metadata!.namespace!}/${learned.role.metadata!.name!} (${count(ruleAtoms(learned.role.rules ?? []).length, 'permission')})`) +
        '\n',
    );
    if (learned.selected === 0) process.stderr.write(`kubeloom rbac learn: no request of the operator was recorded: did the command start an embedded API server (startApiServer) and a Manager?\n`);
    if (code !== 0) {
      process.stderr.write(`kubeloom rbac learn: the command exited with ${code}; the rules may be incomplete\n`);
      return code;
    }
    return learned.selected === 0 ? 1 : 0;
  } finally {
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  }
}

async function check(args: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: { declared: { type: 'string', multiple: true }, learned: { type: 'string' }, 'missing-only': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }).values;
  } catch (err) {
    return fail((err as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  const declaredFiles = values.declared ?? defaultDeclared.filter((f, i) => i === 0 || existsSync(f));
  const learnedFile = values.learned ?? defaultLearned;
  const declared = await readPolicyFiles(declaredFiles);
  const learned = await readPolicyFiles([learnedFile]);
  const all = checkPolicy(declared, learned);
  const shown = values['missing-only'] === true ? all.filter((d) => d.kind === 'missing') : all;
  if (shown.length === 0) {
    process.stdout.write(`kubeloom rbac check: ${declaredFiles.join(', ')} and ${learnedFile} agree\n`);
    return 0;
  }
  process.stderr.write(`kubeloom rbac check: ${declaredFiles.join(', ')} and ${learnedFile} disagree:\n${shown.map((d) => `  ${formatDisagreement(d)}\n`).join('')}`);
  return 1;
}

/** The `rbac` subcommand. */
export const rbacCommand: Command = {
  summary: 'learn least-privilege RBAC from a test run, and check it against the declared rules',
  async run(args: string[]): Promise<number> {
    const [sub, ...rest] = args;
    if (sub === 'learn') return learn(rest);
    if (sub === 'check') return check(rest);
    if (sub === '--help' || sub === '-h') {
      process.stdout.write(usage);
      return 0;
    }
    return fail(sub === undefined ? 'name a subcommand: learn or check' : `unknown subcommand "${sub}"`);
  },
};
