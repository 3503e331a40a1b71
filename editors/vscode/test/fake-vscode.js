'use strict';
// A small fake of the parts of the vscode API the extension uses, recording what the extension did.

class Position {
  constructor(line, character) { this.line = line; this.character = character; }
}
class Range {
  constructor(start, end) { this.start = start; this.end = end; }
}
class SnippetString {
  constructor(value) { this.value = value; }
}
class ThemeIcon {
  constructor(id) { this.id = id; }
}
const Uri = {
  parse(text) { return { scheme: text.split(':')[0], path: text.replace(/^file:\/\//, ''), toString: () => text }; },
};

function emitter() {
  const listeners = [];
  const event = (listener) => { listeners.push(listener); return { dispose() {} }; };
  event.fire = (value) => Promise.all(listeners.map((listener) => listener(value)));
  return event;
}

class QuickPick {
  constructor(log) {
    this.log = log;
    this.items = [];
    this.selectedItems = [];
    this.onDidAccept = emitter();
    this.onDidTriggerItemButton = emitter();
    this.onDidHide = emitter();
    this.visible = false;
  }
  show() { this.visible = true; this.log.push(['quickPick.show', this.title]); }
  hide() { if (this.visible) { this.visible = false; this.onDidHide.fire(); } }
  dispose() { this.disposed = true; }
  /** The user chooses `item` and presses Enter. */
  accept(item) { this.selectedItems = [item]; return this.onDidAccept.fire(); }
  /** The user clicks the button of `item`. */
  clickButton(item) { return this.onDidTriggerItemButton.fire({ item, button: item.buttons[0] }); }
}

/**
 * A fake `vscode` module. `inputs`: what each showInputBox returns, in order (undefined: Escape).
 * `cancelProgress`: the progress notification's Cancel is pressed while the task runs. `choices`: the button
 * clicked on each message shown with buttons.
 */
function makeVSCode({ inputs = [], editor, cancelProgress = false, choices = [] } = {}) {
  const log = [];
  const pending = [...inputs];
  const pendingChoices = [...choices];
  const vscode = {
    log,
    Position, Range, SnippetString, ThemeIcon, Uri,
    ProgressLocation: { Notification: 15 },
    env: { clipboard: { writeText: async (text) => log.push(['clipboard', text]) } },
    commands: { executeCommand: async (...args) => { log.push(['command', ...args]); } },
    workspace: {
      asRelativePath: (uri) => uri.path.replace(/^\/home\/me\//, ''),
      openTextDocument: async (uri) => { log.push(['openTextDocument', uri.toString()]); return { uri }; },
    },
    window: {
      activeTextEditor: editor,
      quickPicks: [],
      showInputBox: async (options) => {
        log.push(options.value === undefined ? ['showInputBox', options.prompt] : ['showInputBox', options.prompt, options.value]);
        return pending.shift();
      },
      // `choices`: the button the user clicks on each message with buttons, in order (undefined: dismissed).
      showErrorMessage: async (message, ...items) => {
        log.push(items.length ? ['error', message, ...items] : ['error', message]);
        return items.length ? pendingChoices.shift() : undefined;
      },
      showWarningMessage: (message) => log.push(['warning', message]),
      showInformationMessage: async (message, ...items) => {
        log.push(items.length ? ['info', message, ...items] : ['info', message]);
        return items.length ? pendingChoices.shift() : undefined;
      },
      showTextDocument: async (document, options) => log.push(['showTextDocument', document.uri.toString(), options.selection.start]),
      createQuickPick: () => { const pick = new QuickPick(log); vscode.window.quickPicks.push(pick); return pick; },
      withProgress: async (options, task) => {
        log.push(['progress', options.title, options.location, options.cancellable]);
        const listeners = [];
        const token = { isCancellationRequested: false, onCancellationRequested: (l) => { listeners.push(l); return { dispose() {} }; } };
        const running = task({ report() {} }, token);
        if (cancelProgress) { token.isCancellationRequested = true; listeners.forEach((l) => l()); }
        return running;
      },
    },
  };
  return vscode;
}

/** A text editor on `uri` with the cursor at `line`:`character` (or a selection). */
function makeEditor(uri, { line = 0, character = 0, selection } = {}) {
  const active = new Position(line, character);
  const inserted = [];
  return {
    inserted,
    document: { uri: Uri.parse(uri) },
    selection: selection || { active, start: active, end: active, isEmpty: true },
    insertSnippet: async (snippet, position) => { inserted.push({ snippet: snippet.value, position }); return true; },
  };
}

/** A fake language client: `replies[method]` is a value or a function of (params, token). */
function makeClient(replies) {
  const requests = [];
  return {
    requests,
    sendRequest: async (method, params, token) => {
      requests.push({ method, params });
      const reply = replies[method];
      if (reply === undefined) throw new Error(`unexpected request ${method}`);
      return typeof reply === 'function' ? reply(params, token) : reply;
    },
  };
}

module.exports = { makeVSCode, makeEditor, makeClient, Position };
