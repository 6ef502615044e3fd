/** Entry of dist/webview.js (browser only). Styles are bundled into dist/webview.css. */
import '@vscode/codicons/dist/codicon.css';
import './styles/chat.css';
import { startChat } from './boot.ts';
import type { VsCodeApi } from './ipc.ts';

declare function acquireVsCodeApi(): VsCodeApi;

startChat(acquireVsCodeApi(), window, document.getElementById('root') ?? document.body);
