import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalToolName,
  codeSpan,
  displayPath,
  toolKind,
  toolLocations,
  toolTitle,
} from '../../../../bridge/translate/toolInfo.ts';
import { validateAcp } from '../../../helpers/acpSchema.ts';

const CWD = '/work/proj';

describe('toolKind', () => {
  test('maps every tool of the issue to its ACP kind', () => {
    const expected: Record<string, string> = {
      Read: 'read',
      Write: 'edit',
      Edit: 'edit',
      MultiEdit: 'edit',
      Bash: 'execute',
      Grep: 'search',
      Glob: 'search',
      WebFetch: 'fetch',
      WebSearch: 'fetch',
      TodoWrite: 'think',
      Agent: 'other',
      Task: 'other',
      ExitPlanMode: 'switch_mode',
      SomethingNew: 'other',
      mcp__github__create_issue: 'other',
    };
    for (const [name, kind] of Object.entries(expected)) {
      assert.equal(toolKind(name), kind, name);
      validateAcp('ToolKind', toolKind(name));
    }
    assert.equal(toolKind(undefined), 'other');
  });

  test('forgives case and separators only', () => {
    assert.equal(toolKind('bash'), 'execute');
    assert.equal(toolKind('todo_write'), 'think');
    assert.equal(toolKind('Multi-Edit'), 'edit');
    assert.equal(toolKind('WEB_FETCH'), 'fetch');
    assert.equal(canonicalToolName('exit_plan_mode'), 'ExitPlanMode');
    // A differently named tool is not guessed.
    assert.equal(canonicalToolName('read_file'), undefined);
    assert.equal(toolKind('read_file'), 'other');
  });
});

describe('toolTitle', () => {
  test('titles of the issue', () => {
    assert.equal(toolTitle('Read', { file_path: '/work/proj/src/a.ts' }, CWD), 'Read src/a.ts');
    assert.equal(toolTitle('Edit', { file_path: '/work/proj/src/a.ts', old_string: 'a', new_string: 'b' }, CWD), 'Edit src/a.ts');
    assert.equal(toolTitle('MultiEdit', { file_path: '/work/proj/src/a.ts', edits: [] }, CWD), 'Edit src/a.ts');
    assert.equal(toolTitle('Write', { file_path: '/work/proj/new.ts', content: 'x' }, CWD), 'Write new.ts');
    assert.equal(toolTitle('Bash', { command: 'npm test' }, CWD), 'Run `npm test`');
    assert.equal(toolTitle('Grep', { pattern: 'TODO', path: '/work/proj/src' }, CWD), 'Grep `TODO` in src');
    assert.equal(toolTitle('Grep', { pattern: 'TODO' }, CWD), 'Grep `TODO`');
    assert.equal(toolTitle('Glob', { pattern: '**/*.ts' }, CWD), 'Glob `**/*.ts`');
    assert.equal(toolTitle('WebFetch', { url: 'https://example.com/x' }, CWD), 'Fetch https://example.com/x');
    assert.equal(toolTitle('WebSearch', { query: 'acp schema' }, CWD), 'Search the web: acp schema');
    assert.equal(toolTitle('TodoWrite', { todos: [] }, CWD), 'Update plan');
    assert.equal(toolTitle('Agent', { description: 'Read README first heading', prompt: '…' }, CWD), 'Agent: Read README first heading');
    assert.equal(toolTitle('Task', { description: 'Explore' }, CWD), 'Agent: Explore');
    assert.equal(toolTitle('ExitPlanMode', { plan: '1. x' }, CWD), 'Plan ready for approval');
    assert.equal(toolTitle('mcp__github__create_issue', { title: 'x' }, CWD), 'mcp__github__create_issue');
  });

  test('paths outside the cwd stay absolute, relative inputs stay relative', () => {
    assert.equal(toolTitle('Read', { file_path: '/etc/hosts' }, CWD), 'Read /etc/hosts');
    assert.equal(toolTitle('Read', { file_path: '/work/project-b/a.ts' }, CWD), 'Read /work/project-b/a.ts');
    assert.equal(toolTitle('Read', { file_path: 'src/b.ts' }, CWD), 'Read src/b.ts');
    assert.equal(toolTitle('Read', { filePath: '/work/proj/c.ts' }, CWD), 'Read c.ts');
    assert.equal(displayPath('/work/proj', CWD), '.');
  });

  test('read ranges, missing input, odd commands', () => {
    assert.equal(toolTitle('Read', { file_path: '/work/proj/a.ts', offset: 10, limit: 20 }, CWD), 'Read a.ts (lines 10-29)');
    assert.equal(toolTitle('Read', { file_path: '/work/proj/a.ts', offset: 10 }, CWD), 'Read a.ts (from line 10)');
    assert.equal(toolTitle('Read', {}, CWD), 'Read');
    assert.equal(toolTitle('Bash', undefined, CWD), 'Run command');
    assert.equal(toolTitle('Bash', { command: 'cat <<EOF > f\nhello\nEOF' }, CWD), 'Run `cat <<EOF > f …`');
    assert.equal(toolTitle('Bash', { command: 'echo `date`' }, CWD), 'Run `` echo `date` ``');
    assert.equal(codeSpan('a``b'), '``` a``b ```');
    assert.equal(toolTitle(undefined, {}, CWD), 'Tool');
  });
});

describe('toolLocations', () => {
  test('absolute paths, with the start line when known', () => {
    assert.deepEqual(toolLocations('Read', { file_path: 'src/a.ts', offset: 12 }, CWD), [{ path: '/work/proj/src/a.ts', line: 12 }]);
    assert.deepEqual(toolLocations('Read', { file_path: '/work/proj/src/a.ts' }, CWD), [{ path: '/work/proj/src/a.ts' }]);
    assert.deepEqual(toolLocations('Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }, CWD), [{ path: '/work/proj/a.ts' }]);
    assert.deepEqual(toolLocations('Write', { file_path: '/tmp/../tmp/n.ts', content: '' }, CWD), [{ path: '/tmp/n.ts' }]);
    assert.deepEqual(toolLocations('Grep', { pattern: 'x', path: 'src' }, CWD), [{ path: '/work/proj/src' }]);
    assert.deepEqual(toolLocations('Bash', { command: 'ls' }, CWD), []);
    assert.deepEqual(toolLocations('Read', { file_path: 42 }, CWD), []);
    for (const loc of toolLocations('Read', { file_path: 'src/a.ts', offset: 12 }, CWD)) validateAcp('ToolCallLocation', loc);
  });
});
