// The floor the chat is measured against (`npm run bench -- vscode`): the least an extension can do to
// show a child's text stream in a webview. It spawns writer.js, splits its stdout into lines, parses
// each, collects the deltas' text and posts it to its webview at most once per 16 ms (one wait: the
// first delta after a post starts the timer); the webview appends one text node per post. Nothing else
// (no protocol, no model, no re-render). The bench installs it as a .vsix into the same code-server as
// ZCode and alternates the two in the same extension host. Not shipped: it is a bench fixture.
'use strict';
const vscode = require('vscode');
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const FRAME_MS = 16;

/** The webview: a transcript the posts are appended to, and a way for the bench to start a stream. */
const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<div class="floor-transcript transcript"></div><span class="floor-state">idle</span>
<script>
const vscode = acquireVsCodeApi();
const transcript = document.querySelector('.transcript');
const state = document.querySelector('.floor-state');
window.addEventListener('message', (e) => {
  const m = e.data;
  if (m.text) transcript.appendChild(document.createTextNode(m.text));
  if (m.state) state.textContent = m.state;
});
window.floorStart = (rate) => { transcript.textContent = ''; state.textContent = 'running'; vscode.postMessage({ start: rate }); };
</script></body></html>`;

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand('relayFloor.open', () => {
    const panel = vscode.window.createWebviewPanel('relayFloor', 'Relay Floor', vscode.ViewColumn.Active, { enableScripts: true });
    panel.webview.html = PAGE;
    panel.webview.onDidReceiveMessage((m) => { if (m.start) relay(panel.webview, Number(m.start)); }, undefined, context.subscriptions);
  }));
}

/** One stream: the child's lines → parsed → text batched per frame → posted. */
function relay(webview, rate) {
  const child = spawn(process.execPath, [join(__dirname, 'writer.js'), String(rate)], { stdio: ['ignore', 'pipe', 'ignore'] });
  let rest = '';
  let pending = '';
  let timer;
  const flush = () => {
    timer = undefined;
    const text = pending;
    pending = '';
    if (text) void webview.postMessage({ text });
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) if (line) pending += JSON.parse(line).params.data.delta;
    if (pending && !timer) timer = setTimeout(flush, FRAME_MS);
  });
  child.on('exit', () => {
    if (timer) clearTimeout(timer);
    flush();
    void webview.postMessage({ state: 'done' });
  });
}

function deactivate() {}

module.exports = { activate, deactivate };
