/**
 * The SDK params parser for a `_zcode/*` method: a rejection becomes -32602 with a readable message
 * naming the method and each problem (the SDK's own zod handling would say only "Invalid params").
 * Bridge-only, so the extension can import the contract (contractDescriptors.ts) without loading the
 * ACP SDK at activation (npm run bench -- vscode).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { ParamsParser } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import { describeIssues, paramsSchema } from './contractSchemas.ts';
import type { ExtensionNotification, ExtensionRequest, ParsedParamsOf } from './contractDescriptors.ts';

export function paramsParser<S extends z.ZodType>(method: string, schema: S): ParamsParser<z.infer<S>> {
  return (params: unknown) => {
    const parsed = schema.safeParse(params ?? {});
    if (parsed.success) return parsed.data;
    // The SDK prefixes the message with "Invalid params: ".
    throw RequestError.invalidParams(z.treeifyError(parsed.error), `${method}: ${describeIssues(parsed.error)}`);
  };
}

/** The parser of a descriptor's params (contractSchemas.ts pairs it with its schema): what the bridge registers a handler with. */
export function descriptorParamsParser<D extends ExtensionRequest | ExtensionNotification>(descriptor: D): ParamsParser<ParsedParamsOf<D>> {
  // The schema is the descriptor's own (CONTRACT_SCHEMAS), so its output is the descriptor's params type.
  return paramsParser(descriptor.method, paramsSchema(descriptor) as z.ZodType<ParsedParamsOf<D>>);
}
