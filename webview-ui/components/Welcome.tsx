/**
 * The empty chat. When zcode cannot be found it says so at once, with the ways out (Locate zcode…,
 * Open Settings, the install instructions) instead of a welcome that looks like a working install.
 * Otherwise it names the zcode that runs and the model the session will use, and offers a few first
 * prompts that start work.
 */
import type { SessionView } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { t } from '../l10n.ts';
import { Icon } from './Icon.tsx';

/** The model option's current value, as its picker names it. */
function modelName(session: SessionView): string | undefined {
  const option = session.configOptions.find((o) => o.category === 'model' && o.type === 'select');
  if (!option || option.type !== 'select') return undefined;
  const flat = option.options.flatMap((o) => ('options' in o ? o.options : [o]));
  return flat.find((o) => o.value === option.currentValue)?.name;
}

function NotFound({ message }: { message: string }) {
  const actions = useActions();
  return (
    <div class="welcome setup" role="alert">
      <Icon name="warning" class="welcome-icon" />
      <p class="setup-title">{t('zcode was not found on this computer.')}</p>
      <p class="field-hint">{t('The chat needs the zcode CLI (it comes with the ZCode desktop app). Point to it, or install ZCode.')}</p>
      <div class="button-row">
        <button type="button" class="button primary" onClick={() => actions.setupAction('locate')}>
          {t('Locate zcode…')}
        </button>
        <button type="button" class="button secondary" onClick={() => actions.setupAction('openSettings')}>
          {t('Open Settings')}
        </button>
        <button type="button" class="button secondary" onClick={() => actions.setupAction('install')}>
          {t('Install ZCode')}
        </button>
      </div>
      <details class="setup-details">
        <summary>{t('Where the extension looked')}</summary>
        <p class="field-hint">{message}</p>
      </details>
    </div>
  );
}

/** First prompts that work in any workspace (until the host sends this workspace's: `firstPrompts`). */
const starters = (): string[] => [t('Explain what this workspace does and how it is organised'), t('Find a likely bug and propose a fix'), t('Write tests for the file I have open')];

export function Welcome({ session }: { session: SessionView }) {
  const actions = useActions();
  if (session.notFound) return <NotFound message={session.notFound} />;
  const model = modelName(session);
  return (
    <div class="welcome">
      <Icon name="hubot" class="welcome-icon" />
      <p>{t('Ask zcode to explain, change or build something in this workspace.')}</p>
      {(session.zcodeVersion || model) && (
        <p class="field-hint welcome-model">
          {[session.zcodeVersion ? t('Connected to zcode {0}', session.zcodeVersion) : '', model ? t('Model: {0}', model) : ''].filter(Boolean).join(' · ')}
        </p>
      )}
      <p class="field-hint">{t('Try one of these to start:')}</p>
      <div class="starters">
        {(session.firstPrompts?.length ? session.firstPrompts : starters()).map((text) => (
          <button key={text} type="button" class="starter" onClick={() => actions.sendPrompt(text, [])}>
            <Icon name="sparkle" /> {text}
          </button>
        ))}
      </div>
      <p class="field-hint">{t('Type / for commands and @ for files and symbols. Attach the editor selection or files with the buttons below the input, or Shift+drag files here from the Explorer.')}</p>
    </div>
  );
}
