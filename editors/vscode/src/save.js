'use strict';
// "Snippets: Save Selection as Snippet…": asks for a trigger and a title (empty: the server derives them from
// the selection) and sends `snippets.saveSelection`. The server writes the file, refuses duplicates and tells the
// user (window/showMessage) either way.

/** The selection as an LSP range (VS Code positions are UTF-16, as the server negotiates with VS Code). */
function lspRange(selection) {
  return {
    start: { line: selection.start.line, character: selection.start.character },
    end: { line: selection.end.line, character: selection.end.character },
  };
}

/**
 * Runs the save flow; resolves with the server's reply, or undefined when there was nothing to save, the user
 * backed out, or the server refused (it has shown why).
 */
async function saveSelection(vscode, client) {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) {
    vscode.window.showWarningMessage('Snippets: select the text to save first.');
    return undefined;
  }
  const trigger = await vscode.window.showInputBox({ prompt: 'Trigger for the new snippet (empty: derived from the text)' });
  if (trigger === undefined) return undefined;
  const title = await vscode.window.showInputBox({ prompt: 'Title (empty: the first line)' });
  if (title === undefined) return undefined;
  const argument = { textDocument: { uri: editor.document.uri.toString() }, range: lspRange(editor.selection) };
  if (trigger.trim()) argument.trigger = trigger.trim();
  if (title.trim()) argument.title = title.trim();
  try {
    return await client.sendRequest('workspace/executeCommand', { command: 'snippets.saveSelection', arguments: [argument] });
  } catch (_error) {
    return undefined; // the server sent the reason as window/showMessage
  }
}

module.exports = { saveSelection, lspRange };
