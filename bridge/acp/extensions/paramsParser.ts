/**
 * The SDK params parser for a `_zcode/*` method: a rejection becomes -32602 with a readable message
 * naming the method and each problem (the SDK's own zod handling would say only "Invalid params").
 * Bridge-only, so the extension can import the contract (contractDescriptors.ts) without loading the
 * ACP SDK at activation (npm run bench -- vscode). Importing contractSchemas.ts here also binds the
 * descriptors' schemas for the whole bridge (extensionMethods.ts and handlers.ts read them through it).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { ParamsParser } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import { describeIssues } from './contractSchemas.ts';

export function paramsParser<S extends z.ZodType>(method: string, schema: S): ParamsParser<z.infer<S>> {
  return (params: unknown) => {
    const parsed = schema.safeParse(params ?? {});
    if (parsed.success) return parsed.data;
    // The SDK prefixes the message with "Invalid params: ".
    throw RequestError.invalidParams(z.treeifyError(parsed.error), `${method}: ${describeIssues(parsed.error)}`);
  };
}
