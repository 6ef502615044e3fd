/**
 * What the extension's ACP client loads after activation, each once: the ACP SDK (its import
 * builds ~470 zod schemas) and the `_zcode/*` schemas. Activation itself loads neither.
 */
import type * as AcpSdk from '@agentclientprotocol/sdk';
import type * as ContractSchemas from '../bridge/acp/extensions/contractSchemas.ts';

export type Sdk = typeof AcpSdk;
let sdkModule: Promise<Sdk> | undefined;

/** The ACP SDK, loaded on first use rather than with the extension (its import builds ~470 zod schemas). */
export function loadSdk(): Promise<Sdk> {
  return (sdkModule ??= import('@agentclientprotocol/sdk'));
}

export type Contract = typeof ContractSchemas;
let contractModule: Promise<Contract> | undefined;

/** The `_zcode/*` schemas and readers, loaded when the client connects (activation loads no zod). */
export function loadContractSchemas(): Promise<Contract> {
  return (contractModule ??= import('../bridge/acp/extensions/contractSchemas.ts'));
}
