// The GLM Coding Plan quota in the status bar tooltip, in the real extension host: the bridge
// reads the Coding Plan key from zcode's ~/.zcode/v2/config.json (a scratch HOME here) and the figures from the
// provider's endpoint (a loopback stand-in, ZCODE_ACP_QUOTA_URL); the tooltip shows what is left and when it
// resets, and marks the figures stale when a refresh fails.
const assert = require('node:assert/strict');
const { mkdirSync, mkdtempSync, writeFileSync } = require('node:fs');
const { createServer } = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { api, newSession, waitFor } = require('./zcodeHelpers.cjs');

/** The tooltip's markdown as read: MarkdownString.appendText escapes spaces and punctuation. */
const plain = (md) => md.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');

describe('ZCode plan quota in the status bar', function () {
  this.timeout(60_000);
  let zcode;
  let server;
  let failing = false;
  const saved = { HOME: process.env.HOME, URL: process.env.ZCODE_ACP_QUOTA_URL };

  before(async () => {
    zcode = await api();
    const home = mkdtempSync(join(tmpdir(), 'zcode-quota-home-'));
    mkdirSync(join(home, '.zcode', 'v2'), { recursive: true });
    writeFileSync(join(home, '.zcode', 'v2', 'config.json'), JSON.stringify({ provider: { 'builtin:zai-coding-plan': { options: { apiKey: 'e2e-key' } } } }));
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (failing || req.headers.authorization !== 'Bearer e2e-key') {
        res.statusCode = 503;
        return res.end(JSON.stringify({ success: false, msg: 'service unavailable' }));
      }
      res.end(JSON.stringify({ success: true, data: { level: 'pro', limits: [{ type: 'TOKENS_LIMIT', number: 5, usage: 1000, currentValue: 250, remaining: 750, nextResetTime: Date.UTC(2030, 0, 1, 5) }] } }));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    // The bridge runs in this extension host: it reads both at each quota request.
    process.env.HOME = home;
    process.env.ZCODE_ACP_QUOTA_URL = `http://127.0.0.1:${server.address().port}/api/monitor/usage/quota/limit`;
    await newSession();
  });

  after(async () => {
    process.env.HOME = saved.HOME;
    if (saved.URL === undefined) delete process.env.ZCODE_ACP_QUOTA_URL;
    else process.env.ZCODE_ACP_QUOTA_URL = saved.URL;
    await new Promise((resolve) => server.close(resolve));
  });

  it('shows the remaining share with its reset time, then marks it stale when the provider fails', async () => {
    await waitFor(() => zcode.host.state === 'ready', { message: 'zcode ready' });
    const usage = await zcode.quota.refresh(true);
    assert.equal(usage.quota.windows[0].remainingPercent, 75);
    const tip = plain(zcode.statusBar.tooltipText);
    assert.match(tip, /GLM Coding Plan \(pro\):/);
    assert.match(tip, /75% left of the 5-hour window, resets /);
    failing = true;
    const stale = await zcode.quota.refresh(true);
    assert.equal(stale.quota.stale, true);
    assert.match(plain(zcode.statusBar.tooltipText), /Stale: figures from .*; the last refresh failed \(the provider answered: service unavailable\)/);
  });
});
