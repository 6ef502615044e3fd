/** The one busy-retry rule (bridge/acp/turns/busyRetry.ts) that session/prompt and the _zcode/* rewind / compact share. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestError } from '@agentclientprotocol/sdk';
import { retryWhileBusy } from '../../../../../bridge/acp/turns/busyRetry.ts';
import { ZcodeError } from '../../../../../bridge/zcode/backend.ts';

const policy = { retries: 3, backoffMs: 100, maxBackoffMs: 250 };
const busy = () => new ZcodeError('prompt is running', 1308, 'session/send');

test('busy answers are retried with a doubling, capped backoff; the first real answer is returned', async () => {
  const waits: number[] = [];
  let calls = 0;
  const result = await retryWhileBusy(
    async () => {
      if (++calls < 4) throw busy();
      return 'sent';
    },
    { policy, wait: async (ms) => void waits.push(ms), gaveUp: () => 'unused' },
  );
  assert.equal(result, 'sent');
  assert.deepEqual(waits, [100, 200, 250]);
});

test('after the last retry: a RequestError (-32603) with the caller\'s words, zcode\'s code and method under data.zcode', async () => {
  let calls = 0;
  const error = await retryWhileBusy(
    async () => {
      calls++;
      throw busy();
    },
    { policy, wait: async () => {}, gaveUp: (attempts) => `still busy after ${attempts} tries` },
  ).catch((e: unknown) => e);
  assert.equal(calls, 4);
  assert.ok(error instanceof RequestError);
  assert.equal(error.code, -32603, 'zcode\'s 1308 is not a JSON-RPC code');
  assert.equal(error.message, 'still busy after 4 tries');
  assert.deepEqual((error.data as { zcode?: unknown }).zcode, { code: 1308, method: 'session/send' });
});

test('any other failure is rethrown at once, as it is; a rejecting wait stops the retries', async () => {
  const other = new ZcodeError('session not active', -32004, 'session/send');
  let calls = 0;
  await assert.rejects(
    retryWhileBusy(
      async () => {
        calls++;
        throw other;
      },
      { policy, wait: async () => {}, gaveUp: () => 'unused' },
    ),
    (e: unknown) => e === other,
  );
  assert.equal(calls, 1);
  const cancelled = RequestError.requestCancelled();
  await assert.rejects(
    retryWhileBusy(
      async () => {
        throw busy();
      },
      { policy, wait: async () => Promise.reject(cancelled), gaveUp: () => 'unused' },
    ),
    (e: unknown) => e === cancelled,
  );
});
