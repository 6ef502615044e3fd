/**
 * The empty chat's first prompts, for this workspace: what the project is called (package.json
 * `name`, else the folder), whether it has a test script, which file is open. Each prompt is a
 * sentence a user could have typed; the facts (workspaceFacts.ts reads them) fill in names, nothing more.
 */

export interface WorkspaceFacts {
  /** The project's name (package.json `name`) or the folder's. */
  project?: string;
  /** The command that runs its tests (`npm test` when package.json has a `test` script). */
  testCommand?: string;
  /** The open file, relative to the workspace. */
  openFile?: string;
}

type Translate = (message: string, ...args: string[]) => string;

/** Three first prompts from `facts`; the generic ones where a fact is missing. */
export function firstPrompts(facts: WorkspaceFacts, t: Translate): string[] {
  const prompts = [
    facts.project ? t('Explain what {0} does and how it is organised', facts.project) : t('Explain what this workspace does and how it is organised'),
    ...(facts.testCommand ? [t('Run `{0}` and fix what fails', facts.testCommand)] : []),
    ...(facts.openFile ? [t('Write tests for {0}', facts.openFile)] : []),
    t('Find a likely bug and propose a fix'),
  ];
  return prompts.slice(0, 3);
}
