/**
 * The list of CLI subcommands. Each is imported lazily so `kubeloom get` does not load the API server.
 */
import { registerCommand } from './commands.ts';

registerCommand('version', async () => (await import('./version-command.ts')).versionCommand);
registerCommand('apiserver', async () => (await import('./apiserver-command.ts')).apiserverCommand);
registerCommand('controller-manager', async () => (await import('./controller-manager-command.ts')).controllerManagerCommand);
registerCommand('rbac', async () => (await import('./rbac-command.ts')).rbacCommand);
registerCommand('get', async () => (await import('./get-command.ts')).getCommand);
registerCommand('demo', async () => (await import('./demo-command.ts')).demoCommand);
registerCommand('generate', async () => (await import('./generate-command.ts')).generateCommand);
registerCommand('port-forward', async () => (await import('./port-forward-command.ts')).portForwardCommand);
registerCommand('init', async () => (await import('./init-command.ts')).initCommand);
registerCommand('create', async () => (await import('./create-command.ts')).createCommand);
registerCommand('manifests', async () => (await import('./manifests-command.ts')).manifestsCommand);
registerCommand('cluster', async () => (await import('./cluster-command.ts')).clusterCommand);
registerCommand('sim', async () => (await import('./sim-command.ts')).simCommand);
