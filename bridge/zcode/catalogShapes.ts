/**
 * zcode's listings of what a user can invoke, parsed at the boundary (docs/zcode-protocol.md "Listings, usage and quota"):
 *
 * - the session snapshot's `slashCommands?: [{name, description, inputHint?, source?:"builtin"|"custom"}]`
 *   (create / resume / read results of current builds);
 * - `skills/referenceCatalog {workspace, sessionId?}` → `{authority, skills:[{id, name, description,
 *   path, scope:"workspace"|"user"|"plugin", enabled:true, pluginName?}]}`;
 * - `plugins/list {workspace, configScope?}` → `{plugins:[{id, name, description?, enabled, rootPath,
 *   commandRootCount, …}], diagnostics}` — it names a plugin's root, not its commands, so the
 *   commands are read from `<rootPath>/commands/*.md` (the layout the reference bridge reads).
 *
 * Read leniently (builds differ; unknown keys pass through); an entry without a usable name is dropped.
 */
import * as z from 'zod';

export const ZcodeSlashCommand = z
  .object({ name: z.string().trim().min(1), description: z.string().optional(), inputHint: z.string().optional(), source: z.string().optional() })
  .passthrough();
export type ZcodeSlashCommand = z.infer<typeof ZcodeSlashCommand>;

/** Keeps the well-formed entries of a list whose members may be of any shape. */
function entries<S extends z.ZodType>(schema: S) {
  return z.array(z.unknown()).transform((items) => items.flatMap((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? [parsed.data as z.infer<S>] : [];
  }));
}

export const SnapshotSlashCommands = entries(ZcodeSlashCommand);

export const SkillEntry = z
  .object({
    name: z.string().trim().min(1),
    description: z.string().optional(),
    path: z.string().optional(),
    scope: z.string().optional(),
    enabled: z.boolean().optional(),
    pluginName: z.string().optional(),
  })
  .passthrough();
export type SkillEntry = z.infer<typeof SkillEntry>;

export const SkillCatalogResult = z.object({ authority: z.string().optional(), skills: entries(SkillEntry) }).passthrough();
export type SkillCatalogResult = z.infer<typeof SkillCatalogResult>;

export const PluginEntry = z
  .object({
    id: z.string().optional(),
    name: z.string().trim().min(1),
    enabled: z.boolean().optional(),
    rootPath: z.string().optional(),
    commandRootCount: z.number().optional(),
  })
  .passthrough();
export type PluginEntry = z.infer<typeof PluginEntry>;

export const PluginListResult = z.object({ plugins: entries(PluginEntry) }).passthrough();
export type PluginListResult = z.infer<typeof PluginListResult>;
