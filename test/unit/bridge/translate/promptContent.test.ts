import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { availableCommands, parseCheckpointArg, parseGoalArgs, parseSlashCommand, promptToZcode } from '../../../../bridge/translate/promptContent.ts';
import { validateAcp, assertValidSessionUpdate } from '../../../helpers/acpSchema.ts';

describe('promptToZcode', () => {
  test('text as is; resource_link as a markdown link inline with the text around it', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'Explain ' },
      { type: 'resource_link', name: 'a.ts', uri: 'file:///work/proj/src/a.ts' },
      { type: 'text', text: ' please' },
    ];
    blocks.forEach((b) => validateAcp('ContentBlock', b));
    assert.deepEqual(promptToZcode(blocks), { content: 'Explain [a.ts](file:///work/proj/src/a.ts) please', attachments: [] });
  });

  test('embedded text resource: fenced block headed by its uri', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'Review this:' },
      { type: 'resource', resource: { uri: 'file:///work/proj/src/a.ts', mimeType: 'text/x-typescript', text: 'const a = 1;\n' } },
      { type: 'text', text: 'Thanks' },
    ];
    assert.deepEqual(promptToZcode(blocks).content, 'Review this:\n\nfile:///work/proj/src/a.ts\n```\nconst a = 1;\n```\n\nThanks');
  });

  test('a resource containing a fence gets a longer fence', () => {
    const { content } = promptToZcode([{ type: 'resource', resource: { uri: 'file:///r.md', text: '```js\nx\n```' } }]);
    assert.equal(content, 'file:///r.md\n````\n```js\nx\n```\n````');
  });

  test('images (and image blobs) become attachments', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'What is this?' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=', uri: 'file:///tmp/shot%201.png' },
      { type: 'image', mimeType: 'image/jpeg', data: '/9j/4AAQ' },
      { type: 'resource', resource: { uri: 'file:///tmp/b.gif', mimeType: 'image/gif', blob: 'R0lGOD' } },
    ];
    blocks.forEach((b) => validateAcp('ContentBlock', b));
    assert.deepEqual(promptToZcode(blocks), {
      content: 'What is this?',
      attachments: [
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=', name: 'shot 1.png' },
        { type: 'image', mimeType: 'image/jpeg', data: '/9j/4AAQ' },
        { type: 'image', mimeType: 'image/gif', data: 'R0lGOD', name: 'b.gif' },
      ],
    });
  });

  test('audio and binary resources: a clear placeholder line', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'Listen' },
      { type: 'audio', mimeType: 'audio/wav', data: 'UklGR' },
      { type: 'resource', resource: { uri: 'file:///tmp/a.zip', mimeType: 'application/zip', blob: 'UEsDB' } },
    ];
    assert.equal(
      promptToZcode(blocks).content,
      'Listen\n\n[Audio attachment not included (audio/wav): zcode does not accept audio]\n\n[Binary resource not included: file:///tmp/a.zip (application/zip)]',
    );
  });
});

describe('slash commands', () => {
  test('parse the bridge commands; unknown ones pass through', () => {
    assert.deepEqual(parseSlashCommand('/compact'), { name: 'compact', args: '' });
    assert.deepEqual(parseSlashCommand('  /goal set ship the release  '), { name: 'goal', args: 'set ship the release' });
    assert.deepEqual(parseSlashCommand('/steer focus on tests\nand docs'), { name: 'steer', args: 'focus on tests\nand docs' });
    assert.deepEqual(parseSlashCommand('/mode plan'), { name: 'mode', args: 'plan' });
    assert.deepEqual(parseSlashCommand('/thought max'), { name: 'thought', args: 'max' });
    assert.deepEqual(parseSlashCommand('/rewind'), { name: 'rewind', args: '' });
    assert.deepEqual(parseSlashCommand('/fork ckpt_12'), { name: 'fork', args: 'ckpt_12' });
    assert.equal(parseSlashCommand('/review this'), undefined);
    assert.equal(parseSlashCommand('/compacted'), undefined);
    assert.equal(parseSlashCommand('please /compact'), undefined);
    assert.equal(parseSlashCommand(''), undefined);
  });

  test('available commands: names, descriptions and input hints, schema-valid', () => {
    const commands = availableCommands();
    assert.deepEqual(
      commands.map((c) => [c.name, c.input?.hint]),
      [
        ['compact', undefined],
        ['goal', 'set <objective> | replace <objective> | show | clear | pause | resume'],
        ['fork', '[checkpoint]'],
        ['rewind', '[checkpoint]'],
        ['steer', '<instructions>'],
        ['mode', '<plan|build|edit|yolo>'],
        ['thought', '<low|medium|high|max>'],
        ['model', '[model id]'],
        ['mcp', undefined],
        ['init', '[what to focus on]'],
        ['resume', undefined],
        ['quota', undefined],
      ],
    );
    assert.ok(commands.every((c) => c.description.length > 0));
    assertValidSessionUpdate({ sessionUpdate: 'available_commands_update', availableCommands: commands });
  });

  test('goal and checkpoint arguments', () => {
    assert.deepEqual(parseGoalArgs(''), { action: 'show' });
    assert.deepEqual(parseGoalArgs('set  ship it '), { action: 'set', objective: 'ship it' });
    assert.deepEqual(parseGoalArgs('REPLACE new goal'), { action: 'replace', objective: 'new goal' });
    assert.deepEqual(parseGoalArgs('pause'), { action: 'pause' });
    assert.match((parseGoalArgs('set') as { error: string }).error, /needs an objective/);
    // A first word that is not an action: the whole text is the objective (zcode's TUI does the same).
    assert.deepEqual(parseGoalArgs('ship the release'), { action: 'set', objective: 'ship the release' });
    assert.deepEqual(parseGoalArgs('destroy'), { action: 'set', objective: 'destroy' });
    assert.deepEqual(parseCheckpointArg(''), { kind: 'latestCheckpoint' });
    assert.deepEqual(parseCheckpointArg('latest'), { kind: 'latestCheckpoint' });
    assert.deepEqual(parseCheckpointArg(' ckpt_3 '), { kind: 'checkpoint', checkpointId: 'ckpt_3' });
  });
});
