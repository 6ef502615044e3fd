/** The schema helper itself: it must reject what a strict client would drop, with readable errors. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AcpSchemaError,
  acpSchemaErrors,
  assertValidSessionUpdate,
  definitionFor,
  validateAcp,
  validateOutgoing,
} from '../../../helpers/acpSchema.ts';

describe('acpSchema helper', () => {
  test('valid payloads pass', () => {
    assertValidSessionUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' }, messageId: 'm1' });
    validateAcp('PromptResponse', { stopReason: 'end_turn' });
  });

  test('invalid payloads throw with the precise reason, not every branch of the union', () => {
    assert.throws(
      () => assertValidSessionUpdate({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'x', kind: 'bogus' }),
      (err: unknown) => err instanceof AcpSchemaError && /\/update\/kind must be one of \["read","edit"/.test(err.message),
    );
    assert.deepEqual(acpSchemaErrors('SessionNotification', { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 'a', content: [{ type: 'diff', path: '/a' }] } }), [
      "/update/content/0 must have required property 'newText' {\"missingProperty\":\"newText\"} [#/$defs/Diff/required]",
    ]);
    assert.throws(() => assertValidSessionUpdate({ sessionUpdate: 'usage_update', used: -1, size: 10 }), AcpSchemaError);
    assert.throws(() => assertValidSessionUpdate({ sessionUpdate: 'usage_update', used: 1 }), /size/);
    assert.throws(() => assertValidSessionUpdate({ sessionUpdate: 'nonsense' }), AcpSchemaError);
    assert.throws(() => validateAcp('NoSuchDefinition', {}), /no definition named/);
  });

  test("the prompt response's unstable usage is checked against schema.unstable.json; other unknown keys stay errors", () => {
    validateAcp('PromptResponse', { stopReason: 'end_turn', usage: { totalTokens: 3, inputTokens: 1, outputTokens: 2, thoughtTokens: 0, cachedReadTokens: 1, cachedWriteTokens: 0 } });
    assert.deepEqual(acpSchemaErrors('PromptResponse', { stopReason: 'end_turn', usage: { totalTokens: 3, inputTokens: 1, outputTokens: 2, promptTokens: 1 } }), [
      '.usage.promptTokens is not in the unstable ACP Usage',
    ]);
    assert.throws(() => validateAcp('PromptResponse', { stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 2 } }), /totalTokens/);
    assert.throws(() => validateAcp('PromptResponse', { stopReason: 'end_turn', usage: { totalTokens: 1.5, inputTokens: 1, outputTokens: 0 } }), AcpSchemaError);
    assert.throws(() => validateAcp('PromptResponse', { stopReason: 'end_turn', promptUsage: {} }), /not in the ACP schema/);
  });

  test('methods map to their request / notification / response definitions through x-method', () => {
    assert.equal(definitionFor('session/update', 'notification'), 'SessionNotification');
    assert.equal(definitionFor('session/request_permission', 'request'), 'RequestPermissionRequest');
    assert.equal(definitionFor('session/request_permission', 'response'), 'RequestPermissionResponse');
    assert.equal(definitionFor('elicitation/create', 'request'), 'CreateElicitationRequest');
    assert.equal(definitionFor('session/prompt', 'response'), 'PromptResponse');
    assert.equal(definitionFor('session/cancel', 'notification'), 'CancelNotification');
    assert.equal(definitionFor('initialize', 'response'), 'InitializeResponse');
    validateOutgoing('session/update', { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } }, 'notification');
    assert.throws(() => validateOutgoing('session/prompt', { stopReason: 'done' }, 'response'), AcpSchemaError);
    // extension methods have no schema
    validateOutgoing('_zcode/session/backgroundTasks', { anything: true }, 'notification');
    assert.throws(() => validateOutgoing('session/unknown', {}, 'request'), /no request definition/);
  });

  test('v2 messages are checked against the v2 draft schema, where a sender may use only the variants it names', () => {
    assert.equal(definitionFor('session/update', 'notification', 2), 'UpdateSessionNotification');
    assert.equal(definitionFor('session/load', 'request', 2), undefined);
    validateOutgoing('session/update', { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: 'a' } } }, 'notification', 2);
    assert.throws(() => validateOutgoing('session/update', { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } }, 'notification', 2), /messageId/);
    // v2's unions take any tag (receivers must accept future variants); what the bridge sends may not use one.
    assert.throws(() => validateOutgoing('session/update', { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } }, 'notification', 2), /"plan" is no variant the ACP schema names/);
    validateOutgoing('session/update', { sessionId: 's', update: { sessionUpdate: '_zcode/x', anything: 1 } }, 'notification', 2);
    assert.throws(() => validateOutgoing('session/prompt', { stopReason: 'end_turn' }, 'response', 2), /messageId/);
    validateOutgoing('session/prompt', { messageId: 'm' }, 'response', 2);
  });
});
