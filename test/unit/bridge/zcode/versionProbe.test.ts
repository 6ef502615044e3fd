/**
 * `zcode --version` as the empty chat shows it: the simulator, launched as the bridge launches it
 * (its profile picks what it prints), and a zcode that cannot be found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readZcodeVersion } from '../../../../bridge/zcode/versionProbe.ts';
import { simLocateOptions } from '../../../helpers/sim.ts';

test('the version zcode prints, as launched by the bridge (the profile the simulator runs decides it)', { timeout: 30_000 }, async () => {
  assert.equal(await readZcodeVersion(simLocateOptions({ profile: 'desktop-3.15' })), '0.16.9');
  assert.equal(await readZcodeVersion(simLocateOptions({ profile: '0.15.2' })), '0.15.2');
});

test('no zcode: no version, and no error', async () => {
  assert.equal(await readZcodeVersion({ zcodePath: '/nonexistent/zcode', env: { PATH: '' } }), undefined);
});
