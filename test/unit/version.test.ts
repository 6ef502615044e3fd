import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BRIDGE_NAME, BRIDGE_VERSION } from '../../bridge/version.ts';

test('bridge reports a name and a semver-shaped version', () => {
  assert.equal(BRIDGE_NAME, 'zcode-acp');
  assert.match(BRIDGE_VERSION, /^\d+\.\d+\.\d+/);
});
