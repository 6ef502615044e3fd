/**
 * One live zcode session in this bridge: its translator state, its event subscription (per backend
 * process), its settings, title, checkpoints and the clients' choices. Owned by the session table
 * (sessionTable.ts); several ACP ids may name the same runtime (its aliases).
 */
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { ZcodeSlashCommand } from '../../zcode/catalogShapes.ts';
import type { ZcodeMcpServer } from '../../zcode/backend.ts';
import type { SessionSettings, Todo, ZcodeEvent } from '../../zcode/protocol.ts';
import type { CheckpointInfo } from '../extensions/contractDescriptors.ts';
import type { UpdateSink } from '../turns/updateSink.ts';
import type { TranslatorState } from '../translation.ts';

export class SessionRuntime {
  /** ACP ids naming this zcode session. */
  readonly aliases = new Set<string>();
  /** Highest event seq handled (re-subscribe `afterSeq`, de-duplication). */
  lastSeq: number | undefined;
  /** Events waiting for the response of the prompt whose turn just ended (`SessionEvents.holdEvents`, sessionEvents.ts). */
  heldEvents: ZcodeEvent[] | undefined;
  /** Backend generation in which the zcode session was created/resumed (-1: not active). */
  activeIn = -1;
  /** Backend generation the subscription belongs to (-1: not subscribed). */
  subscribedIn = -1;
  opening: Promise<void> | undefined;
  settings: SessionSettings | undefined;
  /** The ACP config options (mode, model, thought level) as last announced. */
  configOptions: SessionConfigOption[];
  todos: Todo[] | undefined;
  title: string | undefined;
  /** The commands zcode's snapshot lists for this session (current builds; catalogShapes.ts). */
  slashCommands: ZcodeSlashCommand[] | undefined;
  /** The model the user chose in this bridge (re-applied after a resume: zcode may fall back to its default). */
  chosenModel: string | undefined;
  /** Checkpoints announced by `checkpoint.created` (current builds have no `session/checkpoints`). */
  readonly checkpoints: CheckpointInfo[] = [];
  /** zcode announces titles itself (`session.titleUpdated`, current builds): no need to read them after a turn. */
  titleFromEvents = false;
  /** The client's MCP servers, in zcode's shape: zcode does not keep them, so every resume re-sends them. */
  mcpServers: ZcodeMcpServer[] = [];
  /** Where its updates leave (merges streaming text; see updateSink.ts). Set by the manager. */
  sink!: UpdateSink;

  constructor(
    readonly zcodeId: string,
    readonly cwd: string,
    readonly translator: TranslatorState,
    configOptions: SessionConfigOption[],
  ) {
    this.configOptions = configOptions;
  }
}
