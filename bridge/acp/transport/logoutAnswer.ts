/**
 * ACP `logout`. zcode keeps its own credentials (~/.zcode/v2/config.json) and its published
 * protocol (jimpablo/ZCode packages/shared/src/zcode-protocol/) has no method that signs it out,
 * so the bridge cannot sign out for the client and never pretends it did: it answers with what
 * the user must do. The code is -32603 (ACP has no "unsupported here" code; -32000 means only
 * "authentication required", which would start the client's login flow, and -32601 would say the
 * advertised method does not exist). `data.reason` lets a client tell this answer apart.
 */
import { RequestError } from '@agentclientprotocol/sdk';

/** Where zcode keeps the account it signs in with. */
export const ZCODE_CREDENTIALS_FILE = '~/.zcode/v2/config.json';

/** The answer to every `logout`. */
export function logoutUnavailable(): RequestError {
  const message =
    `zcode has no sign-out the bridge can call, so you are still signed in. To sign out, sign out in the ZCode desktop app (account menu), ` +
    `or remove the account from ${ZCODE_CREDENTIALS_FILE} (run \`zcode\` in a terminal to sign in again).`;
  return new RequestError(-32603, message, { reason: 'logoutNotSupportedByZcode', credentials: ZCODE_CREDENTIALS_FILE });
}
