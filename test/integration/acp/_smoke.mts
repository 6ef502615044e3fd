import { client } from '@agentclientprotocol/sdk';
import { createBridge } from '/work/main/bridge/acp/bridge.ts';
import { simLocateOptions, testLogger } from '/work/main/test/helpers/sim.ts';

const logger = testLogger('smoke');
const bridge = createBridge({ locate: simLocateOptions({ speed: 0 }), logger, storageDir: '/tmp/acp-smoke/store',
  tap: (dir, m) => { if (process.env.TRACE) console.log(dir, JSON.stringify(m).slice(0, 300)); } });
const app = client({ name: 'smoke' })
  .onNotification('session/update', ({ params }) => { console.log('update', JSON.stringify(params.update).slice(0, 200)); })
  .onRequest('session/request_permission', async ({ params }) => { console.log('perm', JSON.stringify(params).slice(0,300)); return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } }; });
const conn = bridge.connectClient(app, { kind: 'local' });
const agent = conn.agent;
const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
console.log('init', JSON.stringify(init));
const s = await agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
console.log('new', JSON.stringify(s).slice(0, 300));
const r = await agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: process.argv[2] ?? '[scenario:text] hello' }] });
console.log('prompt', JSON.stringify(r));
await bridge.dispose();
console.log(logger.lines.filter(l => !l.startsWith('trace')).join('\n'));
