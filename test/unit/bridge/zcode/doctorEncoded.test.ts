/**
 * The doctor on a desktop 3.18.2-style configuration whose credentials are stored encoded
 * (`enc:v2…` strings, an encoded envelope object; fixture test/fixtures/zcode-3.18): keys count as
 * present, the encoded ones are named, no value is ever printed; the bridge never hands an encoded
 * value on as an API key.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { formatDoctorReport, runDoctor } from '../../../../bridge/zcode/doctor.ts';
import { accountApiKey, codingPlanCredentials } from '../../../../bridge/zcode/hostRequests.ts';
import { tempDir } from '../../../helpers/sim.ts';

const HOME = fileURLToPath(new URL('../../../fixtures/zcode-3.18/home/', import.meta.url));
const CONFIG = readFileSync(path.join(HOME, '.zcode', 'v2', 'config.json'), 'utf8');
/** A zcode that is not there: the configuration part of the report is what is under test. */
const NOWHERE = { env: { HOME, ZCODE_BIN: '/nonexistent/zcode' } };

test('encoded keys are present, named as encoded, and never printed', async () => {
  const report = await runDoctor(NOWHERE, { start: false, home: HOME });
  const c = report.configuration.zcodeConfig;
  assert.equal(c.exists, true);
  assert.equal(c.encodedFile, false);
  assert.deepEqual(c.providersWithApiKey, ['builtin:zai-coding-plan', 'builtin:bigmodel-coding-plan', 'custom:local-llm']);
  assert.deepEqual(c.providersWithEncodedApiKey, ['builtin:zai-coding-plan', 'builtin:bigmodel-coding-plan']);
  assert.deepEqual(c.providersWithoutApiKey, ['custom:no-key']);
  const text = formatDoctorReport(report) + JSON.stringify(report);
  for (const secret of ['bm90LWEtcmVhbC1rZXk6Zml4dHVyZS1vbmx5', 'bm90LWEta2V5', 'plain-fixture-key-not-secret']) assert.ok(!text.includes(secret), 'no key value in the report');
  assert.match(formatDoctorReport(report), /encoded: +builtin:zai-coding-plan, builtin:bigmodel-coding-plan/);
});

test('a configuration stored encoded as a whole: presence unknown, not "no credentials"', async () => {
  const tmp = tempDir();
  try {
    const home = tmp.file('home');
    const file = path.join(home, '.zcode', 'v2', 'config.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'enc:v2:ZW50aXJlLWZpbGUtZml4dHVyZQ==\n');
    const report = await runDoctor({ env: { HOME: home, ZCODE_BIN: '/nonexistent/zcode' } }, { start: false, home });
    assert.equal(report.configuration.zcodeConfig.encodedFile, true);
    assert.deepEqual(report.configuration.zcodeConfig.providersWithoutApiKey, [], 'not reported as invalid JSON');
    assert.match(formatDoctorReport(report), /API keys for: unknown \(the file is stored encoded\)/);
  } finally {
    tmp.cleanup();
  }
});

test('provider headers and the quota never use an encoded value as a key; a plain key still works', () => {
  assert.equal(accountApiKey('account:zai-coding-plan', CONFIG), undefined);
  assert.equal(accountApiKey('custom:local-llm', CONFIG), 'plain-fixture-key-not-secret');
  assert.equal(codingPlanCredentials(CONFIG), undefined, 'both coding-plan keys are encoded');
});
