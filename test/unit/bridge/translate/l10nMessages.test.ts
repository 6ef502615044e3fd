/**
 * The bridge's own words in the client's language: the questions form, the plan form, permission
 * option names; zcode's own texts stay as zcode sent them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bt, environmentLocale, resolveLocale } from '../../../../bridge/l10n/messages.ts';
import { BridgeLanguage, initializeLocale } from '../../../../bridge/l10n/language.ts';
import { applyConfigPatch, buildConfigOptions } from '../../../../bridge/translate/config.ts';
import { explainTurnFailure } from '../../../../bridge/translate/failures.ts';
import { toolTitle } from '../../../../bridge/translate/toolInfo.ts';
import { permissionToAcp } from '../../../../bridge/translate/permissionDialogs.ts';
import { planToElicitation, questionsToElicitation } from '../../../../bridge/translate/formDialogs.ts';
import { PermissionRequestParams, type Question } from '../../../../bridge/zcode/protocol.ts';
import { compactionOf } from '../../../../bridge/acp/extensions/operationResults.ts';
import { capabilitiesOf, unprobedCapabilities, unsupportedByZcode } from '../../../../bridge/acp/extensions/capabilities.ts';
import { windowLine } from '../../../../bridge/translate/quotaWindows.ts';
import { locateZcode } from '../../../../bridge/zcode/locateZcode.ts';
import type { LocateHost } from '../../../../bridge/zcode/locateZcode.ts';

const questions: Question[] = [
  { question: 'Which language should the new service use?', header: 'Language', multiSelect: false, options: [{ label: 'TypeScript' }, { label: 'Go' }] },
  { question: 'Which checks should run in CI?', header: 'CI checks', multiSelect: true, options: [{ label: 'Lint' }] },
];

test('locales: VS Code tags, POSIX locales and the environment resolve to the catalogue; anything else is English', () => {
  assert.equal(resolveLocale('zh-cn'), 'zh-cn');
  assert.equal(resolveLocale('zh_CN.UTF-8'), 'zh-cn');
  assert.equal(resolveLocale('zh-Hans'), 'zh-cn');
  assert.equal(resolveLocale('de'), 'en');
  assert.equal(resolveLocale(undefined), 'en');
  assert.equal(environmentLocale({ LANG: 'en_US.UTF-8', LC_ALL: 'zh_CN.UTF-8' }), 'zh-cn');
  assert.equal(bt('zh-cn', 'Please answer {0} question(s).', 2), '请回答 2 个问题。');
  assert.equal(bt('zh-cn', 'a text the catalogue does not have'), 'a text the catalogue does not have');
});

test('zh-cn: the questions form speaks Chinese; the questions and answers are zcode\'s', () => {
  const form = questionsToElicitation('s1', questions, 't1', 'zh-cn');
  assert.equal(form.message, '请回答 2 个问题。');
  const text = JSON.stringify(form);
  assert.match(text, /跳过此问题/);
  assert.match(text, /↳ 或输入自定义内容/);
  assert.match(text, /↳ 或输入其他内容/);
  assert.doesNotMatch(text, /Please answer|Skip this question|or type a/);
  assert.match(text, /Which language should the new service use\?/, 'zcode\'s question is kept');
  assert.match(text, /TypeScript/);
  assert.equal(questionsToElicitation('s1', questions, 't1').message, 'Please answer 2 question(s).', 'English by default');
});

test('zh-cn: the plan form\'s instructions are Chinese, the plan is zcode\'s', () => {
  const form = planToElicitation('s1', '1. Refactor the cache', undefined, 'zh-cn');
  assert.equal(form.message, '准备好开始编码了吗？\n\n1. Refactor the cache');
  assert.match(JSON.stringify(form), /留空 = 批准计划/);
});

test('zh-cn: permission options the bridge names are Chinese; a name zcode chose is kept', () => {
  const params = PermissionRequestParams.parse({
    sessionId: 'z1',
    requestId: 'r1',
    toolName: 'Bash',
    input: { command: 'npm test' },
    options: [
      { optionId: 'allow_once', kind: 'allow_once', name: 'Allow once' },
      { optionId: 'allow_always', kind: 'allow_always' },
      { optionId: 'deny', kind: 'deny', name: 'Deny' },
      { optionId: 'custom', kind: 'allow', name: 'Allow npm scripts' },
    ],
  });
  const request = permissionToAcp(params, undefined, { locale: 'zh-cn' });
  assert.deepEqual(request.options.map((o) => o.name), ['允许一次', '始终允许', '拒绝', 'Allow npm scripts']);
});

test('zh-cn: a failure the bridge explains is Chinese; what zcode said is kept as zcode said it', () => {
  const captcha = explainTurnFailure({ code: 3007, message: 'ProviderBusinessError: captcha verify failed' }, false, 'zh-cn');
  assert.equal(captcha.cause, 'captcha');
  assert.match(captcha.message, /^模型服务商要求验证码验证/);
  assert.match(captcha.message, /captcha verify failed/, 'zcode\'s own text stays');
  assert.match(explainTurnFailure({ code: 3007, message: 'captcha verify failed' }, false).message, /^The model provider asked for a captcha/);
});


test('initialize `_meta.zcode.locale` names the language; anything else in `_meta` is ignored, a malformed one names none', () => {
  assert.equal(initializeLocale({ zcode: { locale: 'zh-CN' }, other: 1 }), 'zh-CN');
  assert.equal(initializeLocale({ zcode: { promptQueue: true } }), undefined);
  assert.equal(initializeLocale({ zcode: { locale: 42 } }), undefined);
  assert.equal(initializeLocale(undefined), undefined);
  const language = new BridgeLanguage('en');
  assert.equal(language.current, 'en');
  language.clientNamed('zh_CN.UTF-8');
  assert.equal(language.current, 'zh-cn');
  language.clientNamed('fr-FR');
  assert.equal(language.current, 'en', 'a language without a catalogue is English');
});

test('zh-cn: titles and picker names the bridge writes; the paths, commands and questions in them are zcode\'s', () => {
  assert.equal(toolTitle('Bash', { command: 'npm test' }, '/w', 'zh-cn'), '运行 `npm test`');
  assert.equal(toolTitle('Read', { file_path: '/w/src/a.ts', offset: 3, limit: 2 }, '/w', 'zh-cn'), '读取 src/a.ts（第 3-4 行）');
  assert.equal(toolTitle('AskUserQuestion', { questions: [{ question: 'a' }, { question: 'b' }] }, '/w', 'zh-cn'), '2 个问题');
  assert.equal(toolTitle('Bash', { command: 'npm test' }, '/w'), 'Run `npm test`', 'English by default');
  const options = buildConfigOptions(undefined, { mode: 'build', locale: 'zh-cn' });
  const mode = options.find((o) => o.id === 'mode');
  assert.ok(mode?.type === 'select');
  assert.deepEqual(
    mode.options.map((o) => ('name' in o ? o.name : '')),
    ['计划', '构建', '编辑', 'YOLO'],
  );
  const patched = applyConfigPatch(options, { mode: 'guarded' }, 'zh-cn').find((o) => o.id === 'mode');
  assert.ok(patched?.type === 'select');
  assert.ok(patched.options.some((o) => 'name' in o && o.name === '谨慎'), 'a mode zcode reports later is named in the same language');
});

test('zh-cn: compaction outcomes are Chinese; zcode\'s reason for a failure is kept', () => {
  assert.equal(compactionOf({ status: 'completed', tokensBefore: 900, tokensAfter: 120 }, 'zh-cn')?.message, '对话已压缩（上下文从 900 个 token 减至 120 个）。');
  assert.equal(compactionOf({ status: 'done' }, 'zh-cn')?.message, '对话已压缩。');
  assert.equal(compactionOf({ status: 'failed', error: 'context too short' }, 'zh-cn')?.message, '压缩失败：context too short');
  assert.equal(compactionOf({ status: 'cancelled' }, 'zh-cn')?.message, '压缩已取消。');
  assert.equal(compactionOf({ status: 'failed' })?.message, 'The compaction failed.', 'English by default');
});

test('zh-cn: why a feature is unavailable is Chinese (what a client shows before the click)', () => {
  const seed = capabilitiesOf({ present: false, reason: 'methodNotFound', detail: 'test' }, { steer: false, rewind: false }, 'zh-cn');
  const reasons = [seed.steer, seed.rewindLatestPrompt, seed.rename, seed.retryTurn].map((f) => f.reason ?? '');
  assert.match(reasons[0], /^此 zcode 版本既不能用旧方式引导/);
  assert.match(reasons[1], /^此 zcode 版本没有 v4 命令（桌面版 3\.12/);
  assert.equal(reasons[2], '此 zcode 版本没有 v4 命令：标题只由此桥接保存');
  for (const reason of reasons) assert.doesNotMatch(reason, /this zcode build|update zcode/);
  assert.equal(unprobedCapabilities('zh-cn').steer.reason, 'zcode 尚未启动');
  assert.equal(unsupportedByZcode('Retrying a turn', seed.retryTurn.reason ?? '', 'zh-cn').message, `重试回合不可用：${reasons[3]}`, 'the refusal after a click too');
  assert.equal(unprobedCapabilities().steer.reason, 'zcode has not been started yet', 'English by default');
});

test('zh-cn: a /quota line is Chinese; the figures and times are the provider\'s', () => {
  const line = windowLine({ key: 'tokens_5h', label: '5-hour window', remainingPercent: 72, usedPercent: 28, used: 28, total: 100, resetsAt: '2030-01-01T14:05:00.000Z' }, 'zh-cn');
  assert.equal(line, '5 小时窗口剩余 72%（已用 28 / 100），2030-01-01 14:05 UTC 重置');
  assert.equal(windowLine({ key: 'mcp', label: 'MCP calls', remainingPercent: 10, usedPercent: 90 }, 'zh-cn'), 'MCP 调用剩余 10%');
});

test('zh-cn: "zcode not found" is Chinese around the places tried, which stay as they are', () => {
  const host: LocateHost = { env: { PATH: '/usr/bin' }, platform: 'linux', homedir: '/home/u', exists: () => false, execPath: '/usr/bin/node', execPathIsElectron: false };
  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return assert.fail('expected zcode not to be found');
  };
  const missing = messageOf(() => locateZcode({ locale: () => 'zh-cn' }, host));
  assert.match(missing, /^未找到 zcode。已查找：PATH: \/usr\/bin\/zcode; desktop app: \/opt\/ZCode\/resources\/glm\/zcode\.cjs/);
  assert.match(missing, /请安装 ZCode（https:\/\/zcode\.z\.ai）/);
  assert.doesNotMatch(missing, /was not found|Tried:|Install ZCode/);
  const explicit = messageOf(() => locateZcode({ zcodePath: '/opt/zc/zcode', locale: () => 'zh-cn' }, host));
  assert.equal(explicit, 'zcode.path 设为 "/opt/zc/zcode"，但该位置没有文件。请将 zcode.path 指向 zcode CLI，或清除此设置让桥接自行查找 zcode（安装：https://zcode.z.ai）。已查找：zcode.path: /opt/zc/zcode。');
  const node = messageOf(() => locateZcode({ zcodePath: '/opt/zc/zcode.cjs', locale: () => 'zh-cn' }, { ...host, exists: (f) => f === '/opt/zc/zcode.cjs', execPathIsElectron: true }));
  assert.match(node, /^\/opt\/zc\/zcode\.cjs 处的 zcode 是 Node\.js 脚本，但未找到可运行它的 Node\.js。/);
  assert.match(messageOf(() => locateZcode({}, host)), /^zcode was not found\. Tried: PATH: \/usr\/bin\/zcode/, 'English by default');
});
