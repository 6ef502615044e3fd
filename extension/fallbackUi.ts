/**
 * The last-resort interactive UI: when the chat webview has not registered its native forms
 * (e.g. the view could not be shown), permission prompts become a QuickPick of the options and
 * elicitation forms become one QuickPick / InputBox per field. Both close when the bridge
 * withdraws the request (`signal`), answering "cancelled".
 */
import * as vscode from 'vscode';
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { InteractiveUi } from './interactiveUi.ts';

type ContentValue = string | number | boolean | string[];

/** QuickPick / InputBox answers for permission prompts and form elicitations. */
export class QuickPickInteractiveUi implements InteractiveUi {
  async requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const title = params.toolCall.title ?? vscode.l10n.t('A tool');
    const items = params.options.map((option) => ({ label: option.name, description: option.kind, optionId: option.optionId }));
    const picked = await pick(items, { title: vscode.l10n.t('ZCode wants to run: {0}', title), placeHolder: vscode.l10n.t('Choose how to answer'), ignoreFocusOut: true }, signal);
    if (!picked) return { outcome: { outcome: 'cancelled' } };
    return { outcome: { outcome: 'selected', optionId: picked.optionId } };
  }

  async createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    if (params.mode !== 'form' || !('requestedSchema' in params)) return { action: 'decline' };
    const schema = params.requestedSchema as { properties?: Record<string, ElicitationPropertySchema>; required?: string[] | null };
    const required = new Set(schema.properties ? (schema.required ?? []) : []);
    const content: Record<string, ContentValue> = {};
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      const answer = await askProperty(params.message, key, property, required.has(key), signal);
      if (answer === CANCELLED) return { action: 'cancel' };
      if (answer !== undefined) content[key] = answer;
    }
    return { action: 'accept', content };
  }
}

const CANCELLED = Symbol('cancelled');

async function askProperty(message: string, key: string, property: ElicitationPropertySchema, required: boolean, signal: AbortSignal): Promise<ContentValue | undefined | typeof CANCELLED> {
  const title = `${message} — ${typeof property.title === 'string' ? property.title : key}`;
  const placeHolder = typeof property.description === 'string' ? property.description : undefined;
  const skip = { label: vscode.l10n.t('Skip'), value: undefined as string | undefined };
  const choices = enumChoices(property);
  if (property.type === 'array') {
    const items = choices.map((c) => ({ label: c.title, value: c.value }));
    const picked = await pickMany(items, { title, placeHolder, ignoreFocusOut: true }, signal);
    return picked === undefined ? CANCELLED : picked.map((p) => p.value);
  }
  if (property.type === 'boolean') {
    const items = [
      { label: vscode.l10n.t('Yes'), value: 'true' },
      { label: vscode.l10n.t('No'), value: 'false' },
      ...(required ? [] : [skip]),
    ];
    const picked = await pick(items, { title, placeHolder, ignoreFocusOut: true }, signal);
    return picked === undefined ? CANCELLED : picked.value === undefined ? undefined : picked.value === 'true';
  }
  if (choices.length > 0) {
    const items = [...choices.map((c) => ({ label: c.title, value: c.value as string | undefined })), ...(required ? [] : [skip])];
    const picked = await pick(items, { title, placeHolder, ignoreFocusOut: true }, signal);
    return picked === undefined ? CANCELLED : picked.value;
  }
  const numeric = property.type === 'number' || property.type === 'integer';
  const text = await input({ title, prompt: placeHolder, ignoreFocusOut: true, validateInput: (v) => validate(v, numeric, property.type === 'integer', required) }, signal);
  if (text === undefined) return CANCELLED;
  if (text === '') return undefined;
  return numeric ? Number(text) : text;
}

function validate(value: string, numeric: boolean, integer: boolean, required: boolean): string | undefined {
  if (value === '') return required ? vscode.l10n.t('An answer is required.') : undefined;
  if (numeric && !Number.isFinite(Number(value))) return vscode.l10n.t('Enter a number.');
  if (integer && !Number.isInteger(Number(value))) return vscode.l10n.t('Enter a whole number.');
  return undefined;
}

function enumChoices(property: ElicitationPropertySchema): { value: string; title: string }[] {
  const source = property.type === 'array' && typeof property.items === 'object' && property.items !== null ? (property.items as Record<string, unknown>) : (property as Record<string, unknown>);
  const options = Array.isArray(source.oneOf) ? source.oneOf : Array.isArray(source.anyOf) ? source.anyOf : undefined;
  if (options) {
    return options
      .filter((o): o is { const: string; title?: string } => typeof o === 'object' && o !== null && typeof (o as { const?: unknown }).const === 'string')
      .map((o) => ({ value: o.const, title: o.title ?? o.const }));
  }
  if (Array.isArray(source.enum)) return source.enum.filter((v): v is string => typeof v === 'string').map((v) => ({ value: v, title: v }));
  return [];
}

/** `showQuickPick` that closes when `signal` aborts. */
function pick<T extends vscode.QuickPickItem>(items: T[], options: vscode.QuickPickOptions, signal: AbortSignal): Promise<T | undefined> {
  return withCancel(signal, (token) => vscode.window.showQuickPick(items, options, token));
}

function pickMany<T extends vscode.QuickPickItem>(items: T[], options: vscode.QuickPickOptions, signal: AbortSignal): Promise<T[] | undefined> {
  return withCancel(signal, (token) => vscode.window.showQuickPick(items, { ...options, canPickMany: true }, token));
}

function input(options: vscode.InputBoxOptions, signal: AbortSignal): Promise<string | undefined> {
  return withCancel(signal, (token) => vscode.window.showInputBox(options, token));
}

async function withCancel<T>(signal: AbortSignal, show: (token: vscode.CancellationToken) => Thenable<T | undefined>): Promise<T | undefined> {
  if (signal.aborted) return undefined;
  const source = new vscode.CancellationTokenSource();
  const onAbort = (): void => source.cancel();
  signal.addEventListener('abort', onAbort);
  try {
    return await show(source.token);
  } finally {
    signal.removeEventListener('abort', onAbort);
    source.dispose();
  }
}
