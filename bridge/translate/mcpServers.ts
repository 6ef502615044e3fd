/**
 * The MCP servers an ACP client sends with `session/new` / `load` / `resume`, in the shape zcode's
 * `session/create` and `session/resume` take (`mcpServers`, docs/zcode-protocol.md "Listings, usage and quota"):
 *   stdio:    {name, command, args, env:[{name, value}]}
 *   http/sse: {name, type:"http"|"sse", url, headers:[{name, value}]}
 * ACP's shapes are the same fields plus `_meta` (and an explicit `type:"stdio"` some clients add);
 * zcode's params are strict, so exactly these keys go out. Pure: no I/O.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import type { ZcodeMcpServer } from '../zcode/backend.ts';

const pairs = (list: ReadonlyArray<{ name: string; value: string }> | undefined): Array<{ name: string; value: string }> =>
  (list ?? []).map(({ name, value }) => ({ name, value }));

/** ACP servers → zcode's. Servers with an empty name are dropped (zcode requires a non-empty one). */
export function mcpServersToZcode(servers: readonly McpServer[] | undefined): ZcodeMcpServer[] {
  const out: ZcodeMcpServer[] = [];
  for (const server of servers ?? []) {
    if (!server.name) continue;
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      out.push({ name: server.name, type: server.type, url: server.url, headers: pairs(server.headers) });
    } else if ('command' in server) {
      out.push({ name: server.name, command: server.command, args: [...server.args], env: pairs(server.env) });
    }
  }
  return out;
}
