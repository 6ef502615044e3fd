/**
 * A stranger cannot lock the user out of remote access: a local process flooding the endpoint with
 * wrong tokens gets rate-limited (401, then 429), and the right token, tried throughout the flood,
 * is never refused — neither when the flood exhausts its own source's budget nor when it exhausts
 * everyone's. Loopback only; the flood is bounded (N wrong tokens, a few at a time, fewer than a
 * source's connection cap, so what is measured is authentication, not the socket cap).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateToken } from '../../../bridge/remote/auth.ts';
import type { FailedAuthLimiterOptions } from '../../../bridge/remote/auth.ts';
import { withHarness } from './bridgeHarness.ts';
import { upgradeFrom } from './harness.ts';

/** Wrong tokens sent in all, how many are in flight at once, and how often the right one is tried. */
const FLOOD = 200;
const IN_FLIGHT = 4;
const RIGHT_EVERY = 10;

interface FloodResult {
  wrong: Map<number, number>;
  rightTried: number;
  rightRefused: number;
}

/** The flood: batches of wrong tokens from loopback addresses, each batch joined by one right-token attempt every RIGHT_EVERY wrong ones. */
async function flood(port: number, token: string): Promise<FloodResult> {
  const result: FloodResult = { wrong: new Map(), rightTried: 0, rightRefused: 0 };
  for (let sent = 0; sent < FLOOD; sent += IN_FLIGHT) {
    const batch = Array.from({ length: IN_FLIGHT }, (_, i) => upgradeFrom(`127.0.0.${2 + ((sent + i) % 50)}`, port, generateToken()));
    const right = sent % RIGHT_EVERY < IN_FLIGHT ? upgradeFrom('127.0.0.1', port, token) : undefined;
    for (const status of await Promise.all(batch)) result.wrong.set(status, (result.wrong.get(status) ?? 0) + 1);
    if (right) {
      result.rightTried++;
      if ((await right) !== 101) result.rightRefused++;
    }
  }
  // And once the flood is over, still inside every lockout window.
  result.rightTried++;
  if ((await upgradeFrom('127.0.0.1', port, token)) !== 101) result.rightRefused++;
  return result;
}

const CASES: Array<{ name: string; authLimit: FailedAuthLimiterOptions; lockedOutAfter: number }> = [
  { name: "the flood spends its source's budget (defaults: 10 a minute per source)", authLimit: {}, lockedOutAfter: 10 },
  { name: "the flood spends everyone's budget (20 a minute in total)", authLimit: { maxFailures: 1_000, maxGlobalFailures: 20 }, lockedOutAfter: 20 },
];

for (const c of CASES) {
  test(`${c.name}: wrong tokens get 401 then 429, the right token is never refused`, async (t) => {
    await withHarness({ server: { authLimit: { windowMs: 10 * 60_000, ...c.authLimit } } }, async (h) => {
      const r = await flood(h.server.port, h.token);
      t.diagnostic(`${FLOOD} wrong tokens: ${JSON.stringify(Object.fromEntries(r.wrong))}; right token refused ${r.rightRefused} of ${r.rightTried} times`);
      assert.equal(r.wrong.get(401), c.lockedOutAfter, 'the limiter counted the wrong tokens up to its budget');
      assert.equal(r.wrong.get(429), FLOOD - c.lockedOutAfter, 'then refused the rest with 429');
      assert.ok(r.rightTried >= FLOOD / RIGHT_EVERY, `the right token was tried throughout the flood (${r.rightTried} times)`);
      assert.equal(r.rightRefused, 0, 'the right token always got in');
    });
  });
}
