// Behaviours of real zcode builds that the reference bridge's regression tests pin down,
// switched on by quirks so that the other tests keep the plain simulator:
// - `zh-errors`: an unknown session id answers -32602 "Session ID 不存在", the wording of current builds;
// - `hydrating-history`: after `session/resume`, zcode is still loading the history from disk: the first
//   `session/messages` answers only the first 3 messages, later ones all of them;
// - `unknown-not-active`: an unknown session id answers -32004 "session not active: <id>", as a build
//   answers for a session it does not hold (another process's, or none at all).

/** The error for an unknown session id. */
export function unknownSessionMessage(sv, id) {
  return sv.quirks.has('zh-errors') ? 'Session ID 不存在' : `session not found: ${id}`;
}

/** The error code for an unknown session id: -32602, or -32004 "not active" with `unknown-not-active`. */
export function unknownSessionCode(sv) {
  return sv.quirks.has('unknown-not-active') ? -32004 : -32602;
}

/** `session/resume` with `hydrating-history`: the next `session/messages` sees a partial history. */
export function startHydrating(sv, session) {
  if (sv.quirks.has('hydrating-history')) session.hydrating = true;
}

/** What `session/messages` answers: the partial history once while hydrating, else everything. */
export function messagesView(session, all = session.messages) {
  if (!session.hydrating) return all;
  session.hydrating = false;
  return all.slice(0, 3);
}

/**
 * `mcp/list {workspace, mcpServers?, mode?}` (docs/zcode-protocol.md "Listings, usage and quota"): a status per server the client
 * passed. A server whose name contains "broken" failed to start; the others connected with 2 tools.
 */
export function mcpList(params) {
  const servers = Array.isArray(params?.mcpServers) ? params.mcpServers : [];
  const updatedAt = new Date().toISOString();
  const statuses = {};
  for (const s of servers) {
    const transport = typeof s.type === 'string' ? s.type : 'stdio';
    statuses[s.name] = s.name.includes('broken')
      ? { status: 'failed', transport, toolCount: 0, updatedAt, error: `spawn ${s.command ?? s.url} ENOENT`, failureKind: 'process_start_failed' }
      : { status: 'connected', transport, toolCount: 2, updatedAt };
  }
  return { statuses };
}
