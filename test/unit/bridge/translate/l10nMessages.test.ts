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
