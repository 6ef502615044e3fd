// Version profiles and quirk switches (zcode-protocol.md "Version support", the seed's compatibility table).
// Versions are discovered by the bridge from behaviour (error codes), so a profile is mostly a list of
// methods that answer -32601 plus which events exist.

const EXTENSION_METHODS = [
  'session/subscribe',
  'session/fork',
  'session/rewind',
  'session/rewindCascade',
  'session/checkpoints',
  'session/goal',
  'session/compact',
  'session/steer',
  'session/setMode',
  'session/setThoughtLevel',
  'session/setModel',
  'session/cancelBackgroundTask',
];

export const PROFILES = {
  // 0.14.5–0.14.7: no session/subscribe and no extension methods: incompatible with the bridge.
  '0.14.6': { version: '0.14.6', missing: EXTENSION_METHODS, steerEvents: false, turnTerminal: false, createSettings: false },
  // 0.14.8: subscribe and most extension methods; no steer lifecycle events, no turn.terminal.
  '0.14.8': {
    version: '0.14.8',
    missing: ['session/rewindCascade', 'session/checkpoints'],
    steerEvents: false,
    turnTerminal: false,
    createSettings: false,
  },
  // 0.15.2: everything (steer events, turn.terminal, rewind); create also returns settings.
  '0.15.2': { version: '0.15.2', missing: [], steerEvents: true, turnTerminal: true, createSettings: true },
  // 0.16+: steer and rewind were removed and answer -32601.
  '0.16': {
    version: '0.16.0',
    missing: ['session/steer', 'session/rewind', 'session/rewindCascade'],
    steerEvents: true,
    turnTerminal: true,
    createSettings: true,
  },
};
PROFILES['0.16.0'] = PROFILES['0.16'];

/**
 * Methods current builds answer -32601 (zcode-current.md §10): removed before 0.16.5 (steer, rewind, …),
 * in 0.16.5 (automation/*), and `session/checkpoints`, which the current method table does not have.
 */
const REMOVED_CURRENT = [
  'session/steer', 'session/rewind', 'session/rewindCascade', 'session/checkpoints', 'session/previewFileRewind', 'session/applyFileRewind',
  'prompt/enhance', 'session/new', 'prompt', 'initialize', 'cancel', 'plugins/marketplace/list',
  'automation/create', 'automation/update', 'automation/delete', 'automation/list', 'automation/checkTaskBinding',
];

// Current builds: zcode's own schemas (current.mjs, currentMethods.mjs, hostRequests.mjs). Both report CLI 0.16.5.
// `0.16.5`: the standalone CLI / App 3.10.2 bundle: the workspace/* methods are still there; no provider headers.
PROFILES['0.16.5'] = { version: '0.16.5', current: true, missing: REMOVED_CURRENT, steerEvents: false, turnTerminal: false, createSettings: true, workspaceMethods: true, providerHeaders: false, storageStartup: false };
// `desktop-3.12`: the CLI inside the ZCode desktop app 3.12.3+: workspace/* gone, startup/storageState before
// any request, provider runtime headers before model requests of Start Plan models. `v4: '3.14'`: the v4
// surface (v4.mjs) with the 3.14.4 command set — no `guarded`, no setHighspeedMetrics, fewer sendText /
// editUserQuery / createSession fields (a live steer through v4/command worked on 3.12.3). The 0.16.5
// profile has no `v4`: it models a build without v4 (every `v4/*` answers -32601).
PROFILES['desktop-3.12'] = { version: '0.16.5', current: true, missing: REMOVED_CURRENT, steerEvents: false, turnTerminal: false, createSettings: true, workspaceMethods: false, providerHeaders: true, storageStartup: true, v4: '3.14' };

// `desktop-3.15`: the CLI inside the desktop app 3.15.1 (CLI 0.16.9; its source is the newest public one).
// Like desktop-3.12, plus the flags below; each flag's behaviour lives next to the code that reads it:
// - v4: '3.15': the `v4/command` surface with 3.15.1's command set (envelope, ACKs, `v4/commands/query`,
//   `v4/conversation/*` queries; v4.mjs, v4Schemas.mjs);
// - guarded: the `guarded` collaboration mode;
// - deferredDrafts: `session/create {persistence:"deferred"}` drafts, closed with `expectedPersistence`;
// - strictCreate315: `session/create` no longer lists agentMemory / officialMcpServers /
//   confineFileToolsToWorkspace and adds dynamicWorkflowMode;
// - events315: the optional event fields 3.15 added (turn.started.executionStartedAt, tool.updated
//   agentType / childToolCallId / description, …).
PROFILES['desktop-3.15'] = { ...PROFILES['desktop-3.12'], version: '0.16.9', v4: '3.15', guarded: true, deferredDrafts: true, strictCreate315: true, events315: true };

/** The newest build: the demo's and the tests' default (ZCODE_SIM_PROFILE=0.15.2 for the seed era). */
export const DEFAULT_PROFILE = 'desktop-3.15';

/** Every quirk switch. `reject-jsonrpc` is on by default because the real backend always does it. */
export const QUIRKS = {
  'reject-jsonrpc': 'a message carrying `jsonrpc` is rejected with -32600 (default ON; `no-reject-jsonrpc` turns it off)',
  'resend-interactions': 'unanswered interaction requests are re-sent every ~1 s with the same requestId and a new id',
  'toolcall-before-scheduled': '`model.streaming tool_call` precedes `tool.updated scheduled`, which then omits `input`',
  'result-without-toolname': '`tool.updated result` events carry no `toolName`',
  busy: 'a send during a running turn answers 1308 (this is also the default; the switch exists for explicitness)',
  'busy-32010': 'busy answers use -32010 "a prompt is already running" instead of 1308',
  'busy-once': 'the first session/send of every session answers busy even when idle',
  'evict-once': 'the first session/send or session/read of a created/resumed session answers -32004 until session/resume',
  'split-lines': 'every outgoing line is written in several random chunks with small delays',
  'big-output': 'the first tool result of every turn is padded to a line of >= 1 MB',
  noise: 'non-JSON lines appear on stdout now and then (Debugger attached., progress bars)',
  'headers-every-request': 'desktop-3.12: interaction/requestProviderRuntimeHeaders before every model request, not only Start Plan ones',
  'zh-errors': 'an unknown session id answers -32602 "Session ID 不存在" (current builds\' wording; acpCases.mjs)',
  'hydrating-history': 'the first session/messages after session/resume answers only the first 3 messages (acpCases.mjs)',
};

const DEFAULT_ON = ['reject-jsonrpc'];

/**
 * Parse comma lists of quirk names (`no-<name>` turns one off). Later specs win.
 * Returns { quirks:Set, unknown:string[] }.
 */
export function parseQuirks(specs) {
  const quirks = new Set(DEFAULT_ON);
  const unknown = [];
  for (const spec of specs) {
    for (const raw of String(spec ?? '').split(',')) {
      const name = raw.trim();
      if (!name) continue;
      const off = name.startsWith('no-');
      const base = off ? name.slice(3) : name;
      if (!(base in QUIRKS)) {
        unknown.push(name);
        continue;
      }
      if (off) quirks.delete(base);
      else quirks.add(base);
    }
  }
  return { quirks, unknown };
}

/** The profile's answer for a method that does not exist on that build, or null. */
export function isMissing(profile, method) {
  return profile.missing.includes(method);
}
