import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InteractiveUiSlot } from '../../../extension/interactiveUi.ts';
import type { InteractiveUi } from '../../../extension/interactiveUi.ts';

const ui = (name: string): InteractiveUi & { name: string } => ({
  name,
  requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
  createElicitation: async () => ({ action: 'cancel' }),
});
const logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

test('a registered UI answers at once; unregistering falls back', async () => {
  const fallback = ui('fallback');
  const slot = new InteractiveUiSlot({ fallback, logger });
  const chat = ui('chat');
  const unregister = slot.set(chat);
  assert.equal(await slot.resolve(new AbortController().signal), chat);
  unregister();
  assert.equal(await slot.resolve(new AbortController().signal), fallback);
});

test('with no UI, revealing the chat waits for it to register', async () => {
  const chat = ui('chat');
  let revealed = 0;
  const slot: InteractiveUiSlot = new InteractiveUiSlot({
    fallback: ui('fallback'),
    logger,
    waitMs: 5_000,
    reveal: async () => {
      revealed++;
      setTimeout(() => slot.set(chat), 20);
    },
  });
  assert.equal(await slot.resolve(new AbortController().signal), chat);
  assert.equal(revealed, 1);
});

test('a chat that never registers (or a withdrawn request) gets the fallback, never a hang', async () => {
  const fallback = ui('fallback');
  const slot = new InteractiveUiSlot({ fallback, logger, waitMs: 30, reveal: async () => undefined });
  assert.equal(await slot.resolve(new AbortController().signal), fallback);
  const slow = new InteractiveUiSlot({ fallback, logger, waitMs: 60_000, reveal: async () => undefined });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 10);
  assert.equal(await slow.resolve(controller.signal), fallback);
});

test('a failing reveal is logged and falls back', async () => {
  const warnings: string[] = [];
  const fallback = ui('fallback');
  const slot = new InteractiveUiSlot({ fallback, logger: { ...logger, warn: (m: string) => void warnings.push(m) }, waitMs: 10, reveal: async () => Promise.reject(new Error('no view')) });
  assert.equal(await slot.resolve(new AbortController().signal), fallback);
  assert.match(warnings[0] ?? '', /no view/);
});
