import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BackendErrorCode, ZcodeError } from '../../../../bridge/zcode/backend.ts';
import { accountApiKey, HostRequests, NO_KEY_MESSAGE, providerHeadersReply, START_PLAN_MESSAGE } from '../../../../bridge/zcode/hostRequests.ts';
import { testLogger } from '../../../helpers/sim.ts';

const KEY = 'cp-0123456789abcdef.fakekey';
const CONFIG = JSON.stringify({ provider: { 'builtin:zai-coding-plan': { options: { apiKey: KEY, baseURL: 'https://api.z.ai/api/coding/paas/v4' } }, 'builtin:off': { enabled: false, options: { apiKey: 'x' } } } });

const headers = (providerId: string, mode?: string) => ({ requestId: 'r1', sessionId: 's', providerId, reason: 'model-request', ...(mode ? { accountAccess: { type: 'zhipu-account', accountType: 'zai', mode, entitled: true } } : {}) });

test('coding plan: the key stored in zcode\'s own config.json (account:X is builtin:X there)', () => {
  assert.deepEqual(providerHeadersReply(headers('account:zai-coding-plan', 'individual-coding-plan'), CONFIG), { headersApplied: true, requestAuth: { apiKey: KEY } });
  assert.equal(accountApiKey('builtin:zai-coding-plan', CONFIG), KEY);
  assert.equal(accountApiKey('account:off', CONFIG), undefined, 'a disabled provider is not used');
});

test('no stored key, an unreadable config, or a Start Plan: headersApplied:false with a message for the user', () => {
  assert.deepEqual(providerHeadersReply(headers('account:zai-coding-plan', 'individual-coding-plan'), undefined), { headersApplied: false, errorMessage: NO_KEY_MESSAGE });
  assert.deepEqual(providerHeadersReply(headers('account:zai-coding-plan', 'individual-coding-plan'), '{not json'), { headersApplied: false, errorMessage: NO_KEY_MESSAGE });
  const start = providerHeadersReply(headers('account:zai-start-plan', 'start-plan'), CONFIG);
  assert.deepEqual(start, { headersApplied: false, errorMessage: START_PLAN_MESSAGE });
  assert.match(START_PLAN_MESSAGE, /desktop app/);
  assert.match(START_PLAN_MESSAGE, /Coding Plan API key/);
});

test('every host request gets its documented answer; unknown ones -32601, logged once; the key never logged', () => {
  const logger = testLogger();
  const hosts = new HostRequests(logger, { file: '/home/u/.zcode/v2/config.json', readText: () => CONFIG });
  assert.deepEqual(hosts.answer('session/requestRuntimePreferences', { sessionId: 's', scope: 'user-execution' }), {
    nativeSearchEnhancementsEnabled: false,
    memoryEnabled: false,
    askUserQuestionAutoResolutionEnabled: false,
  });
  assert.deepEqual(hosts.answer('interaction/requestProviderRuntimeHeaders', headers('account:zai-coding-plan', 'individual-coding-plan')), { headersApplied: true, requestAuth: { apiKey: KEY } });
  assert.deepEqual(hosts.answer('interaction/requestOfficialMcpAuthHeaders', { requestId: 'm', workspace: {}, pluginId: 'p', mcpKey: 'image_search', targetOrigin: 'https://x' }), { ok: false, reason: 'official_auth_unavailable' });
  for (const method of ['interaction/browserList', 'interaction/browserExecute', 'zcode/futureFeature', 'zcode/futureFeature']) {
    assert.throws(() => hosts.answer(method, {}), (e: unknown) => e instanceof ZcodeError && e.code === -32601);
  }
  assert.equal(logger.find('warn', 'zcode/futureFeature').length, 1, 'logged once per method');
  assert.ok(!logger.lines.some((l) => l.includes(KEY)), 'the key is in no log line');
  assert.notEqual(BackendErrorCode.NotFound, -32601);
});

test('malformed headers params still get the documented result shape', () => {
  const hosts = new HostRequests(testLogger(), { file: 'f', readText: () => CONFIG });
  assert.deepEqual(hosts.answer('interaction/requestProviderRuntimeHeaders', { nope: true }), { headersApplied: false, errorMessage: NO_KEY_MESSAGE });
});
