/**
 * The slash-command runner against the fake context: which prompts it takes, what it answers
 * (schema-valid agent text + `end_turn` + `_meta.zcode.command`), usage help, refusals as text,
 * cancellation, and unknown sessions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { runSlashCommand, SLASH_USAGE } from '../../../../../bridge/acp/extensions/slashCommands.ts';
import { ZcodeError } from '../../../../../bridge/zcode/backend.ts';
import { assertValidSessionUpdates, validateAcp } from '../../../../helpers/acpSchema.ts';
import { ACP_ID, fail, fakeContext, ZCODE_ID } from './fakeContext.ts';
import type { FakeContext } from './fakeContext.ts';

const text = (t: string): ContentBlock[] => [{ type: 'text', text: t }];

async function run(f: FakeContext, prompt: ContentBlock[] | string, signal = new AbortController().signal) {
  const answer = await runSlashCommand(f.ctx, { sessionId: ACP_ID, prompt: typeof prompt === 'string' ? text(prompt) : prompt, signal });
  if (answer && 'sendInstead' in answer) throw new Error(`${JSON.stringify(prompt)} was rewritten, not answered`);
  const response = answer;
  if (response) validateAcp('PromptResponse', response);
  for (const { updates } of f.updates) assertValidSessionUpdates(updates, ACP_ID);
  const said = f.updates.flatMap((u) => u.updates).map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''));
  return { response, said: said.join('|') };
}

describe('runSlashCommand', () => {
  test('anything that is not one of the commands passes through (undefined), touching nothing', async () => {
    const f = fakeContext();
    for (const prompt of ['hello', '/etc/hosts', '/frobnicate the thing', '/compacting now', ' not/compact', '']) assert.equal((await run(f, prompt)).response, undefined, prompt);
    assert.equal((await run(f, [{ type: 'text', text: '/compact' }, { type: 'image', mimeType: 'image/png', data: 'AA==' }])).response, undefined);
    assert.equal((await run(f, [])).response, undefined);
    // An unknown /word only makes the bridge look at zcode's command listings (it may be a new zcode command).
    assert.deepEqual([...new Set(f.calls.map(([method]) => method))].sort(), ['plugins/list', 'skills/referenceCatalog']);
    assert.equal(f.updates.length, 0);
  });

  test('a command split over text blocks is still a command', async () => {
    const f = fakeContext();
    f.answers.set('goal', { goal: { objective: 'ship', status: 'active' } });
    const { response, said } = await run(f, [
      { type: 'text', text: '/goal set ' },
      { type: 'text', text: 'ship' },
    ]);
    assert.deepEqual(response, { stopReason: 'end_turn', _meta: { zcode: { command: { name: 'goal', ok: true, result: { goal: { objective: 'ship', status: 'active' } } } } } });
    assert.equal(said, 'Goal set: **ship** (active)');
    assert.deepEqual(f.calls, [['goal', { sessionId: ZCODE_ID, action: 'set', objective: 'ship' }]]);
  });

  test('zh-cn: the replies the bridge writes are Chinese; the goal, values and zcode\'s words in them are not translated', async () => {
    const f = fakeContext({ locale: 'zh-cn' });
    f.answers.set('goal', { goal: { objective: 'ship the release', status: 'active' } });
    assert.equal((await run(f, '/goal set ship the release')).said, '目标已设置：**ship the release** (active)');
    f.updates.length = 0;
    assert.match((await run(f, '/steer')).said, /^\/steer 需要要追加的指示。\n\n用法：/);
    f.updates.length = 0;
    assert.match((await run(f, '/clear')).said, /^`\/clear` 属于 zcode 自己的终端界面/);
  });

  test('a command of zcode’s terminal UI (/clear, /exit …) gets a friendly line, not the model', async () => {
    const f = fakeContext();
    for (const name of ['clear', 'exit', 'help']) {
      f.updates.length = 0;
      const { response, said } = await run(f, `/${name}`);
      assert.match(said, new RegExp(`^\`/${name}\` belongs to zcode's own terminal UI`));
      assert.deepEqual(response, { stopReason: 'end_turn', _meta: { zcode: { command: { name, ok: false, tuiOnly: true } } } });
    }
    assert.equal(f.calls.length, 0);
  });

  test('bad usage answers with usage help as agent text, never a protocol error, and never reaches zcode', async () => {
    const f = fakeContext();
    const cases: Array<[string, string]> = [
      ['/fork a b', `Usage: ${SLASH_USAGE.fork}`],
      ['/rewind --hard', `Usage: ${SLASH_USAGE.rewind}`],
      ['/steer', `/steer needs the instructions to add.\n\nUsage: ${SLASH_USAGE.steer}`],
      ['/mode', `/mode needs exactly one value. Choose one of: \`plan\`, \`build\`, \`edit\`, \`yolo\`.\n\nUsage: ${SLASH_USAGE.mode}`],
      ['/thought ultra', `Unknown thinking level \`ultra\`. Choose one of: \`low\`, \`medium\`, \`high\`, \`max\`.\n\nUsage: ${SLASH_USAGE.thought}`],
    ];
    for (const [prompt, expected] of cases) {
      f.updates.length = 0;
      const { response, said } = await run(f, prompt);
      assert.equal(said, expected, prompt);
      assert.equal(response?.stopReason, 'end_turn');
      assert.deepEqual(response?._meta, { zcode: { command: { name: prompt.slice(1).split(' ')[0], ok: false } } });
    }
    assert.equal(f.calls.length, 0);
    assert.equal(f.configPatches.length, 0);
  });

  test('zcode refusing is reported as text with ok:false', async () => {
    const f = fakeContext();
    f.answers.set('fork', fail(new ZcodeError('session sess_zcode has no checkpoints yet', -32000, 'session/fork')));
    const { response, said } = await run(f, '/fork');
    assert.equal(said, '⚠️ /fork failed: session sess_zcode has no checkpoints yet');
    assert.deepEqual(response, { stopReason: 'end_turn', _meta: { zcode: { command: { name: 'fork', ok: false } } } });
  });

  test('/steer without a running prompt says so; with one it steers', async () => {
    const f = fakeContext();
    f.answers.set('steer', { accepted: true });
    assert.match((await run(f, '/steer go left')).said, /^Nothing to steer/);
    assert.equal(f.calls.length, 0);
    f.handle.running = true;
    f.updates.length = 0;
    assert.match((await run(f, '/steer go left')).said, /^Steer sent/);
    assert.deepEqual(f.calls, [['steer', { sessionId: ZCODE_ID, content: 'go left' }]]);
  });

  test('a cancelled command request ends cancelled without text', async () => {
    const f = fakeContext();
    const abort = new AbortController();
    abort.abort();
    const { response, said } = await run(f, '/compact', abort.signal);
    assert.deepEqual(response, { stopReason: 'cancelled' });
    assert.equal(said, '');
    assert.equal(f.calls.length, 0);
  });

  test('an unknown session stays a protocol error (-32002)', async () => {
    const f = fakeContext();
    await assert.rejects(runSlashCommand(f.ctx, { sessionId: 'lazy_gone', prompt: text('/mode plan'), signal: new AbortController().signal }), (error: unknown) => {
      assert.ok(error instanceof RequestError);
      assert.equal(error.code, -32002);
      return true;
    });
  });
});
