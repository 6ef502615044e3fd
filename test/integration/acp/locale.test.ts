/**
 * The bridge's own words in the client's language, end to end through the official SDK client and
 * the simulator: picker names, the `/` menu's descriptions, tool card titles, permission options,
 * the questions and plan forms, retry notices, failure explanations, the `/mcp`, `/quota`,
 * `/resume` and `/compact` replies and why a feature is unavailable in Simplified Chinese, while
 * zcode's own texts (its questions, the command it runs, what it said about a failure) stay as zcode
 * sent them.
 *
 * The language comes from the in-process bridge's creator (the VS Code extension) or, for
 * `zcode-acp` over stdio, from `initialize` `_meta.zcode.locale`, else the environment.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { CreateElicitationRequest, RequestPermissionRequest, SessionConfigOption, SessionUpdate } from '@agentclientprotocol/sdk';
import { useZcodeAccount } from '../../helpers/zcodeHome.ts';
import { buildCli } from './harness.ts';
import type { AcpHarness } from './harness.ts';
import { errorOf, newSession, prompt, resendAsRetryInPlace, say, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };
/** A private HOME with a Coding Plan key, and a loopback stand-in for the provider's quota endpoint (`/quota`). */
const account = useZcodeAccount();
/** A client that shows forms (ACP elicitation): the questions and the plan come as forms. */
const FORMS = { elicitation: { form: {} } };

before(async () => {
  await buildCli();
});

/** The names a client shows for a select option: the option's own, and each value's. */
function names(options: readonly SessionConfigOption[] | null | undefined, id: string): { name: string; values: Record<string, string> } {
  const option = options?.find((o) => o.id === id);
  assert.ok(option && option.type === 'select', `a select option '${id}'`);
  const values: Record<string, string> = {};
  for (const v of option.options) if (!('group' in v)) values[v.value] = v.name;
  return { name: option.name, values };
}

async function openSession(h: AcpHarness): Promise<{ sessionId: string; configOptions: SessionConfigOption[] | null | undefined }> {
  const { sessionId, configOptions } = await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
  return { sessionId, configOptions };
}

/** Every text a client would show for one update (titles, chunks, notices). */
function shown(update: SessionUpdate): string {
  switch (update.sessionUpdate) {
    case 'tool_call':
      return update.title;
    case 'agent_thought_chunk':
    case 'agent_message_chunk':
      return update.content.type === 'text' ? update.content.text : '';
    case 'notice':
      return update.title;
    default:
      return '';
  }
}

describe('the bridge speaks the client\'s language (inproc, zh-cn)', () => {
  test('picker names, card titles, permission options, forms, retry notices and failures are Chinese; zcode\'s texts are not translated', T, async () => {
    await withHarness('inproc', { caps: FORMS, locale: 'zh-cn', ...resendAsRetryInPlace('[scenario:think-transient]') }, async (h) => {
      const { sessionId, configOptions } = await openSession(h);

      // Picker names the bridge gives (zcode names no mode or level; model names are zcode's).
      const mode = names(configOptions, 'mode');
      assert.equal(mode.name, '模式');
      assert.equal(mode.values.build, '构建');
      assert.equal(mode.values.plan, '计划');
      const level = names(configOptions, 'thought_level');
      assert.equal(level.name, '思考程度');
      assert.equal(level.values.high, '高');

      // The `/` menu: the bridge's commands described in Chinese (their input hints are syntax).
      await h.waitFor('the slash menu', () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'));
      const menu = h.updatesOf(sessionId).find((u) => u.sessionUpdate === 'available_commands_update');
      assert.ok(menu?.sessionUpdate === 'available_commands_update');
      const compact = menu.availableCommands.find((c) => c.name === 'compact');
      assert.equal(compact?.description, '压缩对话历史以释放上下文');
      assert.equal(menu.availableCommands.find((c) => c.name === 'goal')?.input?.hint, 'set <objective> | replace <objective> | show | clear | pause | resume');

      // A tool card's title: the bridge's verb, zcode's command.
      await prompt(h, sessionId, '[scenario:bash]');
      const card = h.updatesOf(sessionId).find((u) => u.sessionUpdate === 'tool_call');
      assert.equal(card && shown(card), '运行 `npm test`');

      // A shell permission: options the bridge names, a title in Chinese, the command as zcode sent it.
      await prompt(h, sessionId, '[scenario:permission]');
      const permission = h.dialogs.find((d) => d.method === 'session/request_permission')?.params as RequestPermissionRequest;
      assert.deepEqual(
        permission.options.map((o) => o.name),
        ['允许一次', '始终允许', '拒绝'],
      );
      assert.equal(permission.toolCall.title, '运行 `npm test`');

      // The questions form: the bridge's message and choices, zcode's questions.
      await prompt(h, sessionId, '[scenario:questions]');
      const questions = h.dialogs.find((d) => d.method === 'elicitation/create')?.params as CreateElicitationRequest;
      assert.equal(questions.message, '请回答 2 个问题。');
      const form = JSON.stringify(questions);
      assert.match(form, /跳过此问题/);
      assert.match(form, /↳ 或输入/);
      assert.doesNotMatch(form, /Please answer|Skip this question|or type a/);
      const questionCard = h.updatesOf(sessionId).find((u) => u.sessionUpdate === 'tool_call' && /问题/.test(u.title));
      assert.ok(questionCard, 'the questions card is titled in Chinese');

      // The plan form's instructions.
      await prompt(h, sessionId, '[scenario:plan]');
      const plan = h.dialogs.filter((d) => d.method === 'elicitation/create').at(-1)?.params as CreateElicitationRequest;
      assert.match(plan.message, /^准备好开始编码了吗？/);
      assert.match(JSON.stringify(plan), /留空 = 批准计划/);

      // A retry notice (a thought paragraph for a client without ACP notices).
      const before = h.updatesOf(sessionId).length;
      await prompt(h, sessionId, '[scenario:think-transient]');
      const retry = h.updatesOf(sessionId).slice(before).map(shown).join('');
      assert.match(retry, /zcode 的回合失败（请求频率受限）；.* 秒后重试（第 1 次，共 \d+ 次）/);
      assert.doesNotMatch(retry, /retrying in/);

      // A failure the bridge explains; what zcode said stays as it said it.
      const failure = await errorOf(prompt(h, sessionId, '[scenario:fail-captcha]'));
      assert.match(failure.message, /^模型服务商要求验证码验证/);
      assert.match(failure.message, /captcha verify failed/);

      // Nothing the bridge wrote in this session is English.
      const all = h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'tool_call').map(shown);
      for (const title of all) assert.doesNotMatch(title, /^(Run|Read|Write|Edit|Question|\d+ questions|Plan ready)/, `title "${title}"`);
    });
  });
});

describe('zcode-acp takes the client\'s language from initialize, else the environment (stdio)', () => {
  test('`_meta.zcode.locale` zh-CN: Chinese picker names, permission options and form texts, whatever the environment says', T, async () => {
    await withHarness('stdio', { caps: FORMS, initializeMeta: { zcode: { locale: 'zh-CN' } }, env: { LANG: 'en_US.UTF-8' } }, async (h) => {
      const { sessionId, configOptions } = await openSession(h);
      assert.equal(names(configOptions, 'mode').values.build, '构建');
      await prompt(h, sessionId, '[scenario:permission]');
      const permission = h.dialogs.find((d) => d.method === 'session/request_permission')?.params as RequestPermissionRequest;
      assert.deepEqual(
        permission.options.map((o) => o.name),
        ['允许一次', '始终允许', '拒绝'],
      );
      await prompt(h, sessionId, '[scenario:questions]');
      const questions = h.dialogs.find((d) => d.method === 'elicitation/create')?.params as CreateElicitationRequest;
      assert.equal(questions.message, '请回答 2 个问题。');
      assert.match(JSON.stringify(questions), /跳过此问题/);
    });
  });

  test('no locale in initialize: the environment decides (LANG=zh_CN.UTF-8 → Chinese; `_meta.zcode.locale` en → English)', T, async () => {
    await withHarness('stdio', { env: { LANG: 'zh_CN.UTF-8' } }, async (h) => {
      const { sessionId } = await openSession(h);
      await prompt(h, sessionId, '[scenario:permission]');
      const permission = h.dialogs.find((d) => d.method === 'session/request_permission')?.params as RequestPermissionRequest;
      assert.equal(permission.options[0].name, '允许一次');
    });
    await withHarness('stdio', { env: { LANG: 'zh_CN.UTF-8' }, initializeMeta: { zcode: { locale: 'en' } } }, async (h) => {
      const { sessionId } = await openSession(h);
      await prompt(h, sessionId, '[scenario:permission]');
      const permission = h.dialogs.find((d) => d.method === 'session/request_permission')?.params as RequestPermissionRequest;
      assert.equal(permission.options[0].name, 'Allow once');
    });
  });
});

describe('slash command replies and capability reasons in the client\'s language (inproc, zh-cn)', () => {
  test('/mcp, /quota, /resume and /compact answer in Chinese; server names, states, errors and titles stay zcode\'s', T, async () => {
    await withHarness('inproc', { locale: 'zh-cn' }, async (h) => {
      const cwd = account.zhome.home;
      const older = await newSession(h, cwd);
      await say(h, older, 'Fix the flaky test [scenario:text]');
      const { sessionId } = await h.agent.request('session/new', {
        cwd,
        mcpServers: [
          { name: 'files', command: '/usr/bin/mcp-files', args: [], env: [] },
          { name: 'broken-one', command: '/nowhere/mcp', args: [], env: [] },
        ],
      });

      const mcp = await say(h, sessionId, '/mcp');
      assert.match(mcp, /^MCP 服务器：\n/);
      assert.match(mcp, /✅ `files` — connected \(stdio，2 个工具\)/, "zcode's state word and transport stay");
      assert.match(mcp, /❌ `broken-one` — failed \(stdio，0 个工具\): spawn \/nowhere\/mcp ENOENT/);
      assert.doesNotMatch(mcp, /MCP servers|\btools?\b/);

      const quota = await say(h, sessionId, '/quota');
      assert.equal(quota, 'GLM Coding Plan (pro):\n- 5 小时窗口剩余 75%（已用 250 / 1000），2030-01-01 05:00 UTC 重置\n- 每周窗口剩余 60%，2030-01-07 00:00 UTC 重置');

      const resume = await say(h, sessionId, '/resume');
      assert.match(resume, /^`[^`]+` 中较早的对话：\n/);
      assert.match(resume, /\*\*Fix the flaky test\*\* — `sess_/, "zcode's title stays");
      assert.match(resume, /在编辑器的对话列表中打开其中一个/);
      assert.doesNotMatch(resume, /Earlier conversations|Open one/);

      await say(h, sessionId, 'some history to compact [scenario:text]');
      const compact = await say(h, sessionId, '/compact');
      assert.match(compact, /^对话已压缩（上下文从 \d+ 个 token 减至 \d+ 个）。$/);
    });
  });

  test('what a build without v4 commands cannot do, and why, is said in Chinese before anyone clicks', T, async () => {
    await withHarness('inproc', { locale: 'zh-cn', sim: { profile: '0.15.2' } }, async (h) => {
      await newSession(h, WORKSPACE);
      const caps = (await h.agent.request('_zcode/agent/capabilities', {})) as Record<string, { available?: boolean; reason?: string }>;
      assert.equal(caps.rewindLatestPrompt.available, false);
      assert.match(caps.rewindLatestPrompt.reason ?? '', /^此 zcode 版本没有 v4 命令/);
      assert.match(caps.rename.reason ?? '', /^此 zcode 版本没有 v4 命令：标题只由此桥接保存$/);
      for (const [feature, value] of Object.entries(caps)) {
        if (typeof value === 'object' && value !== null && 'reason' in value) assert.doesNotMatch(value.reason ?? '', /this zcode build|update zcode/, feature);
      }
    });
  });
});
