/** The extension methods' param schemas and the SDK params parser built from them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RequestError } from '@agentclientprotocol/sdk';
import { EXTENSION_METHOD } from '../../../../../bridge/acp/extensions/contractDescriptors.ts';
import { ForkParams, GoalParams, RewindParams, SteerParams } from '../../../../../bridge/acp/extensions/paramsSchemas.ts';
import { paramsParser } from '../../../../../bridge/acp/extensions/paramsParser.ts';

function parse(parser: ReturnType<typeof paramsParser>, params: unknown): unknown {
  return typeof parser === 'function' ? parser(params) : parser.parse(params);
}

describe('extension param schemas', () => {
  test('method names are _zcode/session/* or _zcode/account/*', () => {
    for (const method of Object.values(EXTENSION_METHOD)) assert.match(method, /^_zcode\/(session|account|agent)\/[a-zA-Z]+$/);
  });

  test('strings are trimmed, unknown keys dropped, _meta accepted', () => {
    assert.deepEqual(ForkParams.parse({ sessionId: ' s1 ', checkpointId: 'cp', extra: 1, _meta: { a: 1 } }), { sessionId: 's1', checkpointId: 'cp', _meta: { a: 1 } });
    assert.deepEqual(RewindParams.parse({ sessionId: 's', cascade: false }), { sessionId: 's', cascade: false });
    assert.deepEqual(SteerParams.parse({ sessionId: 's', content: '  more tests  ' }), { sessionId: 's', content: 'more tests' });
  });

  test('goal: set/replace need an objective; the other actions ignore it', () => {
    assert.equal(GoalParams.safeParse({ sessionId: 's', action: 'set', objective: ' ' }).success, false);
    assert.equal(GoalParams.safeParse({ sessionId: 's', action: 'replace' }).success, false);
    assert.equal(GoalParams.safeParse({ sessionId: 's', action: 'clear' }).success, true);
    assert.equal(GoalParams.safeParse({ sessionId: 's', action: 'SET', objective: 'x' }).success, false);
  });

  test('the parser throws -32602 with every problem in one readable line and zod\'s tree as data', () => {
    const parser = paramsParser(EXTENSION_METHOD.goal, GoalParams);
    assert.throws(
      () => parse(parser, { action: 'nope', objective: 3 }),
      (error: unknown) => {
        assert.ok(error instanceof RequestError);
        assert.equal(error.code, -32602);
        assert.equal(error.message, 'Invalid params: _zcode/session/goal: sessionId is required; action must be one of: show, set, replace, clear, pause, resume; objective must be a string');
        assert.ok(typeof error.data === 'object' && error.data !== null && 'properties' in error.data);
        return true;
      },
    );
    assert.throws(() => parse(paramsParser(EXTENSION_METHOD.fork, ForkParams), null), /sessionId is required/);
    assert.deepEqual(parse(paramsParser(EXTENSION_METHOD.fork, ForkParams), { sessionId: 'a' }), { sessionId: 'a' });
  });
});
