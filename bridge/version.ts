/** The bridge's name and version, reported in ACP `initialize` and `zcode-acp --version`. Injected by esbuild in bundles. */
declare const __ZCODE_BRIDGE_VERSION__: string | undefined;

export const BRIDGE_NAME = 'zcode-acp';
export const BRIDGE_VERSION: string =
  typeof __ZCODE_BRIDGE_VERSION__ === 'string' ? __ZCODE_BRIDGE_VERSION__ : '0.0.0-dev';
