/** The chat: header, transcript, composer, pickers. State comes from the store (host snapshots). */
import { t } from '../l10n.ts';
import { useEffect, useState } from 'preact/hooks';
import { ActionsContext, type ChatActions } from '../actions.ts';
import type { ChatStore } from '../store.ts';
import { ViewStateContext, type ViewState } from '../viewState.ts';
import { Composer, type AttachBus } from './Composer.tsx';
import { Header } from './Header.tsx';
import { Icon } from './Icon.tsx';
import { Toolbar } from './Toolbar.tsx';
import { Transcript } from './Transcript.tsx';
import { Welcome } from './Welcome.tsx';
import { KeyHistoryContext } from './useCardFocus.ts';
import { KeyHistory } from '../keyHistory.ts';

const unobservedKeys = new KeyHistory();

export function App({ store, actions, view, bus, keys = unobservedKeys }: { store: ChatStore; actions: ChatActions; view: ViewState; bus?: AttachBus; keys?: KeyHistory }) {
  const [state, setState] = useState(store.current);
  useEffect(() => store.subscribe(setState), [store]);
  return (
    <ActionsContext.Provider value={actions}>
      <KeyHistoryContext.Provider value={keys}>
        <ViewStateContext.Provider value={view}>
          {state.ready ? (
            <div class="chat">
              <Header session={state.session} />
              <Transcript items={state.items} running={state.session.running} earlier={state.session.earlier} empty={<Welcome session={state.session} />} checkpoints={{
                  running: state.session.running,
                  unavailable: state.session.checkpointUnavailable,
                  features: state.session.featureUnavailable,
                  latestUserId: state.items.findLast((item) => item.type === 'user')?.id,
                }} />
              <Composer session={state.session} view={view} bus={bus} settings={state.settings} />
              <Toolbar session={state.session} />
            </div>
          ) : (
            <div class="connecting" role="status">
              <Icon name="loading" spin /> {t('Connecting to ZCode…')}
            </div>
          )}
        </ViewStateContext.Provider>
      </KeyHistoryContext.Provider>
    </ActionsContext.Provider>
  );
}
