/**
 * One chat webview (the sidebar view's, or an editor tab's) wired to its `ChatController`: the
 * HTML with its strict CSP (resources only from dist/ and media/), and the webview's messages
 * routed to the controller. Shared by chatViewProvider.ts and chatPanels.ts.
 */
import * as vscode from 'vscode';
import { toIpcMessage } from '../../webview-ui/contract.ts';
import type { ChatController } from './chatController.ts';
import { chatHtml } from './webviewHtml.ts';

/** Sets the webview's options and HTML (the chat bundle). */
export function loadChatWebview(webview: vscode.Webview, extensionUri: vscode.Uri): void {
  const dist = vscode.Uri.joinPath(extensionUri, 'dist');
  const media = vscode.Uri.joinPath(extensionUri, 'media');
  webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist, media] };
  webview.html = chatHtml({
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css')).toString(),
    lang: vscode.env.language,
    l10n: vscode.l10n.bundle,
  });
}

/** Streams the controller's output to the webview and its messages to the controller. */
export function connectChatWebview(webview: vscode.Webview, controller: ChatController): vscode.Disposable {
  controller.attach((msg) => void webview.postMessage(msg));
  return webview.onDidReceiveMessage((data: unknown) => {
    const msg = toIpcMessage(data);
    if (msg) controller.receive(msg);
  });
}
