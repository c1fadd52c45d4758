import { test } from 'node:test';
import assert from 'node:assert/strict';
import { implementedControllers } from '../controllers/controller-manager.ts';
import { apiserverUsage } from './apiserver-command.ts';

test('kubeloom apiserver --help names every controller that runs by default', () => {
  const paragraph = apiserverUsage.split('\n\n')[1]!.replace(/-\n/g, '-').replace(/\s+/g, ' ');
  for (const name of ['garbagecollector', 'namespace', ...implementedControllers]) assert.match(paragraph, new RegExp(`[ (]${name}[,)]`), name);
});
