/**
 * What the bridge itself writes for people (form messages, choice labels, permission options,
 * picker names, tool card titles, slash command replies, compaction outcomes, why a feature is
 * unavailable, retry notices, failures, where zcode was looked for), in the client's language. The English
 * text is the key and the fallback; a language is a table of its translations. zcode's own texts
 * (the model's questions, its error messages, tool output, model names) are never translated here:
 * they stay as zcode sent them.
 *
 * The language comes from the client (language.ts): the VS Code extension passes its display
 * language (`vscode.env.language`), any client may name one in `initialize` `_meta.zcode.locale`,
 * and `zcode-acp` falls back to `LC_ALL` / `LC_MESSAGES` / `LANG`.
 */

export type BridgeLocale = 'en' | 'zh-cn';

/** A language tag or POSIX locale (`zh-CN`, `zh_CN.UTF-8`, `zh-Hans`, `zh`) as a catalogue language; English otherwise. */
export function resolveLocale(tag: string | undefined): BridgeLocale {
  const t = (tag ?? '').trim().toLowerCase().replace(/_/g, '-').replace(/\..*$/, '');
  if (t === 'zh' || t === 'zh-cn' || t === 'zh-sg' || t.startsWith('zh-hans')) return 'zh-cn';
  return 'en';
}

/** The locale of a process environment (`zcode-acp`): LC_ALL wins, then LC_MESSAGES, then LANG. */
export function environmentLocale(env: Readonly<Record<string, string | undefined>>): BridgeLocale {
  return resolveLocale(env.LC_ALL || env.LC_MESSAGES || env.LANG);
}

const ZH_CN: Readonly<Record<string, string>> = {
  'Please answer {0} question(s).': '请回答 {0} 个问题。',
  'Please answer the question.': '请回答这个问题。',
  'Skip this question': '跳过此问题',
  '↳ or type a custom value (overrides the selection)': '↳ 或输入自定义内容（替代所选项）',
  '↳ or type another value (added to the selection)': '↳ 或输入其他内容（加入所选项）',
  Allow: '允许',
  'Allow once': '允许一次',
  'Always allow': '始终允许',
  'Allow for this project': '在此项目中允许',
  'Allow for this session': '在此会话中允许',
  Deny: '拒绝',
  Reject: '拒绝',
  'Always deny': '始终拒绝',
  'Always reject': '始终拒绝',
  'Ready to code?': '准备好开始编码了吗？',
  Feedback: '反馈',
  'Empty = approve the plan. Anything typed = reject and use this text as the redirection.': '留空 = 批准计划；输入内容 = 拒绝，并按这段文字调整方向。',
  'The model provider asked for a captcha verification (code 3007), which only the ZCode desktop app can show: this plan needs the ZCode desktop app. Use a GLM Coding Plan API key for editor sessions, or run this turn in the ZCode desktop app.':
    '模型服务商要求验证码验证（代码 3007），只有 ZCode 桌面应用能显示验证码：此套餐需要 ZCode 桌面应用。编辑器会话请使用 GLM Coding Plan API 密钥，或在 ZCode 桌面应用中运行此回合。',
  'The model provider blocked the request because of unusual activity (code 3012). Wait a while, then use the ZCode desktop app or a GLM Coding Plan API key.':
    '模型服务商因异常活动拦截了请求（代码 3012）。请稍候，再使用 ZCode 桌面应用或 GLM Coding Plan API 密钥。',
  'zcode needed sign-in headers for this provider that the editor cannot give. Use a GLM Coding Plan API key (configured in the ZCode desktop app) for editor sessions.':
    'zcode 需要此服务商的登录请求头，而编辑器无法提供。编辑器会话请使用 GLM Coding Plan API 密钥（在 ZCode 桌面应用中配置）。',
  'Your plan has no quota left for this model (insufficient balance or no resource package). Check your plan in the ZCode desktop app or pick another model.':
    '你的套餐对此模型已无额度（余额不足或没有资源包）。请在 ZCode 桌面应用中查看套餐，或选择其他模型。',
  'Authentication with the model provider failed. Sign in again in the ZCode desktop app, or check the API key of the selected provider.':
    '与模型服务商的身份验证失败。请在 ZCode 桌面应用中重新登录，或检查所选服务商的 API 密钥。',
  "The selected model's provider is not configured in zcode. Pick another model, or set the provider up in the ZCode desktop app.":
    '所选模型的服务商未在 zcode 中配置。请选择其他模型，或在 ZCode 桌面应用中设置该服务商。',
  'The model provider is rate-limiting requests. Wait a moment and try again.': '模型服务商正在限制请求频率。请稍候再试。',
  'zcode could not reach the model provider (network error or timeout). Check your connection (and proxy), then try again.':
    'zcode 无法连接模型服务商（网络错误或超时）。请检查网络连接（和代理）后重试。',
  'The model request failed. Try again, or pick another model.': '模型请求失败。请重试，或选择其他模型。',
  'The turn failed (zcode gave no reason).': '回合失败（zcode 未给出原因）。',
  // Session config: the names and descriptions the bridge gives modes and thought levels (zcode names none).
  Mode: '模式',
  'How much zcode may do without asking': 'zcode 无需询问就能做多少事',
  Model: '模型',
  'Thought level': '思考程度',
  'How much the model reasons before answering': '模型回答前推理多少',
  Plan: '计划',
  'Explore read-only and propose a plan for your approval before changing anything': '只读探索，先提出计划供你批准，再做任何更改',
  Build: '构建',
  'Edit files and run commands, asking before risky actions': '编辑文件并运行命令，有风险的操作前先询问',
  Edit: '编辑',
  'Apply file edits without asking; still asks before running commands': '直接应用文件编辑；运行命令前仍会询问',
  'Run every tool without asking for permission': '运行任何工具都不请求许可',
  Guarded: '谨慎',
  "zcode's guarded mode (desktop 3.15 and later): more careful about what runs without asking": 'zcode 的谨慎模式（桌面版 3.15 及以上）：对无需询问就运行的操作更谨慎',
  Auto: '自动',
  'Let zcode decide when to ask': '由 zcode 决定何时询问',
  Low: '低',
  'Fast answers with little reasoning': '快速回答，推理较少',
  Medium: '中',
  'Balanced reasoning': '适度推理',
  High: '高',
  'Deeper reasoning for harder tasks': '更深入的推理，适合更难的任务',
  Max: '最高',
  'The most reasoning the model allows': '模型允许的最多推理',
  // Tool card titles ({0} is a path, a command, a pattern or a question: zcode's, never translated).
  Tool: '工具',
  'Read {0}': '读取 {0}',
  Read: '读取',
  ' (lines {0}-{1})': '（第 {0}-{1} 行）',
  ' (from line {0})': '（从第 {0} 行起）',
  ' (first {0} lines)': '（前 {0} 行）',
  'Write {0}': '写入 {0}',
  Write: '写入',
  'Edit {0}': '编辑 {0}',
  'Run {0}': '运行 {0}',
  'Run command': '运行命令',
  'Read output of {0}': '读取 {0} 的输出',
  'Read background output': '读取后台输出',
  'Stop {0}': '停止 {0}',
  'Stop background command': '停止后台命令',
  '{0} {1} in {2}': '{0} {1}（在 {2} 中）',
  'List {0}': '列出 {0}',
  'Fetch {0}': '获取 {0}',
  Fetch: '获取',
  'Search the web: {0}': '搜索网页：{0}',
  'Search the web': '搜索网页',
  'Update plan': '更新计划',
  'Agent: {0}': '子智能体：{0}',
  Agent: '子智能体',
  'Plan ready for approval': '计划待批准',
  'Question: {0}': '问题：{0}',
  '{0} questions': '{0} 个问题',
  Question: '问题',
  // The bridge's slash commands in the `/` menu (their input hints are syntax and stay).
  'Compact the conversation history to free context': '压缩对话历史以释放上下文',
  'Show or manage the session goal: show, set <objective>, replace <objective>, clear, pause, resume': '查看或管理会话目标：show、set <目标>、replace <目标>、clear、pause、resume',
  'Fork this session into a new one (latest checkpoint, or the one given)': '将此会话分叉为新会话（从最新检查点，或指定的检查点）',
  'Rewind the session to a checkpoint (latest if none given)': '将会话回退到检查点（未指定时为最新检查点）',
  'Add instructions to the running turn': '向正在运行的回合追加指示',
  'Switch mode: plan, build, edit or yolo': '切换模式：plan、build、edit 或 yolo',
  'Set the thinking level: low, medium, high or max': '设置思考程度：low、medium、high 或 max',
  'Switch the model (without a value: list the models)': '切换模型（不带参数：列出可用模型）',
  'Show the MCP servers zcode has for this session and whether they connected': '显示 zcode 在此会话中的 MCP 服务器及其连接状态',
  'Ask zcode to study this project and write its AGENTS.md (what to build, test and avoid)': '让 zcode 研究此项目并编写 AGENTS.md（如何构建、测试，以及要避免什么）',
  'List the earlier conversations of this folder to open again': '列出此文件夹中较早的对话，以便重新打开',
  'Show what is left of your GLM Coding Plan windows and when they reset': '显示 GLM Coding Plan 各时间窗口的剩余额度和重置时间',
  // Slash command replies ({0} is a command, a value, a checkpoint or zcode's own message).
  "{0} belongs to zcode's own terminal UI and does nothing here; this chat's commands are in the / menu.": '{0} 属于 zcode 自己的终端界面，在这里不起作用；此聊天的命令在 / 菜单中。',
  '/{0} failed: {1}': '/{0} 失败：{1}',
  'Usage: {0}': '用法：{0}',
  'checkpoint {0}': '检查点 {0}',
  'the latest checkpoint': '最新检查点',
  'Forked this session from {0} into a new session: {1}. Open it from the session list to continue there.': '已从{0}将此会话分叉为新会话：{1}。在会话列表中打开它即可继续。',
  '/steer needs the instructions to add.': '/steer 需要要追加的指示。',
  'Nothing to steer: no prompt is running on this session. Send the instructions as a normal prompt instead.': '无可引导：此会话没有正在运行的提示。请改为作为普通提示发送这些指示。',
  'Steer sent: zcode will take your instructions into account in the running turn.': '引导已发送：zcode 会在正在运行的回合中考虑你的指示。',
  ' Choose one of: {0}.': ' 可选：{0}。',
  'Model: {0}.': '模型：{0}。',
  'zcode has not reported its models for this session yet.': 'zcode 尚未报告此会话可用的模型。',
  '/{0} needs exactly one value.': '/{0} 需要且只需要一个值。',
  'Unknown mode {0}.': '未知模式 {0}。',
  'Unknown model {0}.': '未知模型 {0}。',
  'Unknown thinking level {0}.': '未知思考程度 {0}。',
  'Model set to {0}.': '模型已设为 {0}。',
  'Mode set to {0}.': '模式已设为 {0}。',
  'Thinking level set to {0}.': '思考程度已设为 {0}。',
  '(none)': '（无）',
  'Goal: {0}': '目标：{0}',
  'No goal is set. Set one with `/goal set <objective>`.': '尚未设置目标。用 `/goal set <目标>` 设置一个。',
  'Goal cleared.': '目标已清除。',
  'Goal set: {0}': '目标已设置：{0}',
  'Goal replaced: {0}': '目标已替换：{0}',
  'Goal paused: {0}': '目标已暂停：{0}',
  'Goal resumed: {0}': '目标已恢复：{0}',
  'No goal is set.': '尚未设置目标。',
  'Rewound the session to {0}': '已将会话回退到{0}',
  ' (1 message removed)': '（删除了 1 条消息）',
  ' ({0} messages removed)': '（删除了 {0} 条消息）',
  '.': '。',
  ' Also deleted 1 fork made from the removed checkpoints.': '同时删除了基于已删除检查点创建的 1 个分叉。',
  ' Also deleted {0} forks made from the removed checkpoints.': '同时删除了基于已删除检查点创建的 {0} 个分叉。',
  // Notices and failures of a turn.
  'Waiting for zcode to finish stopping the previous turn…': '正在等待 zcode 停止上一个回合…',
  'zcode did not stop the previous turn; restarting zcode and resuming this session…': 'zcode 未停止上一个回合；正在重启 zcode 并恢复此会话…',
  'zcode was stopped while the prompt was running': '提示运行期间 zcode 被停止了',
  'zcode exited unexpectedly while the prompt was running': '提示运行期间 zcode 意外退出',
  'zcode has not stopped the previous turn of this session {0} s after it was cancelled. Restarting zcode would end it, but other sessions are running turns: send this again once they have finished (the bridge then restarts zcode), or restart zcode now ("ZCode: Restart zcode").':
    '此会话的上一个回合被取消 {0} 秒后，zcode 仍未停止它。重启 zcode 可以结束它，但其他会话正在运行回合：请在它们结束后再次发送（届时会重启 zcode），或立即重启 zcode（“ZCode: 重启 zcode”）。',
  'zcode is still busy with another prompt on this session (tried {0} times); try again when it has finished': 'zcode 仍在处理此会话的另一个提示（已尝试 {0} 次）；请在它结束后重试',
  "zcode's turn failed ({0}); retrying in {1} s (attempt {2} of {3})…": 'zcode 的回合失败（{0}）；{1} 秒后重试（第 {2} 次，共 {3} 次）…',
  'a transient error': '暂时性错误',
  'rate limit': '请求频率受限',
  network: '网络错误',
  'model request failed': '模型请求失败',
  // Compaction outcomes ({0} is zcode's own error text).
  'The conversation was compacted ({0} → {1} tokens of context).': '对话已压缩（上下文从 {0} 个 token 减至 {1} 个）。',
  'The conversation was compacted.': '对话已压缩。',
  'The compaction failed: {0}': '压缩失败：{0}',
  'The compaction failed.': '压缩失败。',
  'The compaction was cancelled.': '压缩已取消。',
  'zcode exited before the compaction finished': '压缩完成前 zcode 已退出',
  'zcode did not report the outcome of the compaction within {0} s': 'zcode 在 {0} 秒内未报告压缩结果',
  'zcode is busy with this session (a turn or a compaction is running; tried {0} times); try again when it has finished':
    'zcode 正忙于此会话（有回合或压缩正在运行；已尝试 {0} 次）；请在它结束后重试',
  // Why a feature is unavailable with this zcode (shown before the user clicks it).
  'zcode has not been started yet': 'zcode 尚未启动',
  'this zcode build has no v4 commands (desktop 3.12 / CLI 0.16.5 and newer have them): update zcode to use it':
    '此 zcode 版本没有 v4 命令（桌面版 3.12 / CLI 0.16.5 及更新版本才有）：请更新 zcode 后使用',
  'this zcode build can steer neither the legacy way (removed in 0.16) nor with v4 commands (desktop 3.12 / CLI 0.16.5 and newer): update zcode to use it':
    '此 zcode 版本既不能用旧方式引导（0.16 已移除），也没有 v4 命令（桌面版 3.12 / CLI 0.16.5 及更新版本）：请更新 zcode 后使用',
  'this zcode build has no v4 commands: the title is kept by this bridge only': '此 zcode 版本没有 v4 命令：标题只由此桥接保存',
  // The refusal when the user acts anyway ({0} is the action, {1} the reason above).
  '{0} is not available: {1}': '{0}不可用：{1}',
  Steer: '引导',
  'Removing a queued message': '删除排队的消息',
  'Editing a queued message': '编辑排队的消息',
  'Going back to a message': '回到某条消息',
  'Asking again': '重新提问',
  'Restoring files': '恢复文件',
  'Going back to an earlier message': '回到较早的消息',
  'Forking from a reply': '从回复分叉',
  'Retrying a turn': '重试回合',
  // `/mcp` (server names, states, transports and errors are zcode's).
  'This zcode build cannot list MCP servers (no `mcp/list`).': '此 zcode 版本无法列出 MCP 服务器（没有 `mcp/list`）。',
  'No MCP servers are configured for this session.': '此会话没有配置 MCP 服务器。',
  'MCP servers:': 'MCP 服务器：',
  ', 1 tool': '，1 个工具',
  ', {0} tools': '，{0} 个工具',
  unknown: '未知',
  // `/quota` ({0} in the refusal is the reason: the provider's, or the bridge's English log text).
  'No plan quota to show: {0}.': '没有可显示的套餐额度：{0}。',
  'unknown reason': '原因未知',
  'the provider refused the stored Coding Plan key': '服务商拒绝了已保存的 Coding Plan 密钥',
  'the provider is rate limiting quota requests; try again in a minute': '服务商正在限制额度查询的频率；请一分钟后再试',
  'These figures are from {0} UTC; the latest refresh failed ({1}).': '这些数据来自 {0} UTC；最近一次刷新失败（{1}）。',
  '{0}% left of the {1}': '{1}剩余 {0}%',
  ' ({0} of {1} used)': '（已用 {0} / {1}）',
  ', resets {0} UTC': '，{0} UTC 重置',
  '5-hour window': '5 小时窗口',
  'weekly window': '每周窗口',
  'token window': 'token 窗口',
  'MCP calls': 'MCP 调用',
  // `/resume` (titles and ids are zcode's).
  'There are no earlier conversations in this folder.': '此文件夹中没有较早的对话。',
  Untitled: '无标题',
  'Earlier conversations in {0}:': '{0} 中较早的对话：',
  'Earlier conversations:': '较早的对话：',
  "Open one from your editor's conversation list (it loads with its history).": '在编辑器的对话列表中打开其中一个（会连同历史记录一起加载）。',
  // zcode not found: the sentences around the places tried (paths and setting names stay).
  'zcode was not found. Tried: {0}. Install ZCode ({1}), or set the "zcode.path" setting (or the ZCODE_BIN environment variable) to the zcode CLI (a "zcode" executable or the desktop app\'s resources/glm/zcode.cjs).':
    '未找到 zcode。已查找：{0}。请安装 ZCode（{1}），或将 "zcode.path" 设置（或 ZCODE_BIN 环境变量）指向 zcode CLI（"zcode" 可执行文件或桌面应用的 resources/glm/zcode.cjs）。',
  'zcode at {0} is a Node.js script, but no Node.js was found to run it. Tried: {1}. Install Node.js 20 or newer, or set the "zcode.nodePath" setting (or the ZCODE_NODE environment variable) to a node binary.':
    '{0} 处的 zcode 是 Node.js 脚本，但未找到可运行它的 Node.js。已查找：{1}。请安装 Node.js 20 或更新版本，或将 "zcode.nodePath" 设置（或 ZCODE_NODE 环境变量）指向 node 可执行文件。',
  '{0} is set to "{1}", but no file exists there. Point {0} at a node binary. Tried: {2}.': '{0} 设为 "{1}"，但该位置没有文件。请将 {0} 指向 node 可执行文件。已查找：{2}。',
  '{0} is set to "{1}", but no file exists there. Point {0} at the zcode CLI, or unset it to let the bridge find zcode (install: {2}). Tried: {3}.':
    '{0} 设为 "{1}"，但该位置没有文件。请将 {0} 指向 zcode CLI，或清除此设置让桥接自行查找 zcode（安装：{2}）。已查找：{3}。',
};

const CATALOGUES: Record<Exclude<BridgeLocale, 'en'>, Readonly<Record<string, string>>> = { 'zh-cn': ZH_CN };

/** The translations of a language, English keys (the catalogue test checks every key the bridge uses has one). */
export function translations(locale: Exclude<BridgeLocale, 'en'>): Readonly<Record<string, string>> {
  return CATALOGUES[locale];
}

/** `message` in `locale` (English when it has no translation), `{0}`, `{1}` … replaced by `args`. */
export function bt(locale: BridgeLocale, message: string, ...args: (string | number)[]): string {
  const text = locale === 'en' ? message : (CATALOGUES[locale][message] ?? message);
  return text.replace(/\{(\d+)\}/g, (whole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : whole));
}
