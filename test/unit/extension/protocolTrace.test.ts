import { test } from 'node:test';
import assert from 'node:assert/strict';
import { protocolTrace } from '../../../extension/protocolTrace.ts';

/** VS Code's LogLevel: Off 0, Trace 1, Debug 2, Info 3, Warning 4, Error 5. */
const TRACE = 1;

/** A message that counts how often it is serialised. */
function countingMessage(): { message: object; serialised: () => number } {
  let count = 0;
  const message = { jsonrpc: '2.0', method: 'session/update', toJSON: () => (count++, { method: 'session/update' }) };
  return { message, serialised: () => count };
}

test('below trace level the tap writes nothing and never serialises the message', () => {
  const lines: string[] = [];
  for (const logLevel of [0, 2, 3, 4, 5]) {
    const { message, serialised } = countingMessage();
    protocolTrace({ logLevel, trace: (m) => lines.push(m) }, TRACE)('out', message);
    assert.equal(serialised(), 0, `level ${logLevel}`);
  }
  assert.deepEqual(lines, []);
});

test('at trace level (and for a log without a level) every message is written, with its direction', () => {
  for (const log of [{ logLevel: TRACE }, {}]) {
    const lines: string[] = [];
    const tap = protocolTrace({ ...log, trace: (m) => lines.push(m) }, TRACE);
    tap('in', { id: 1, method: 'initialize' });
    tap('out', { id: 1, result: {} });
    assert.deepEqual(lines, ['→ bridge {"id":1,"method":"initialize"}', '← bridge {"id":1,"result":{}}']);
  }
});

test('the level is read per message: raising it to trace starts the trace without a restart', () => {
  const lines: string[] = [];
  const log = { logLevel: 3, trace: (m: string) => lines.push(m) };
  const tap = protocolTrace(log, TRACE);
  tap('out', { n: 1 });
  log.logLevel = TRACE;
  tap('out', { n: 2 });
  assert.deepEqual(lines, ['← bridge {"n":2}']);
});
