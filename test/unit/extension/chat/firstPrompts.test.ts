/** The empty chat's first prompts for a workspace: the facts fill in names; generic prompts where none is known. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstPrompts } from '../../../../extension/chat/firstPrompts.ts';

/** vscode.l10n.t's English: the message with `{n}` filled in. */
const t = (message: string, ...args: string[]): string => message.replace(/\{(\d+)\}/g, (_, i: string) => args[Number(i)] ?? '');

test('a project with tests and an open file: three prompts about it', () => {
  assert.deepEqual(firstPrompts({ project: 'acme-api', testCommand: 'npm test', openFile: 'src/server.ts' }, t), [
    'Explain what acme-api does and how it is organised',
    'Run `npm test` and fix what fails',
    'Write tests for src/server.ts',
  ]);
});

test('nothing known: the prompts that work in any workspace', () => {
  assert.deepEqual(firstPrompts({}, t), ['Explain what this workspace does and how it is organised', 'Find a likely bug and propose a fix']);
  assert.deepEqual(firstPrompts({ project: 'notes' }, t), ['Explain what notes does and how it is organised', 'Find a likely bug and propose a fix']);
});
