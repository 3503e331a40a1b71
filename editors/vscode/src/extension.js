'use strict';
// Wiring only: starts the language client and registers the commands; the logic is in ask.js, save.js,
// server.js and settings.js (tested with `node --test` against a fake vscode API).
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');
const { initializationOptions, serverCommand } = require('./settings');
const { ask, forgetLast } = require('./ask');
const { saveSelection } = require('./save');
const { checkServer, reportStartFailure } = require('./server');

let client;

async function activate(context) {
  const configuration = vscode.workspace.getConfiguration('snippets');
  const command = serverCommand(configuration);
  // Without a server the commands say again what is wrong with snippets.serverPath.
  const serving = (run) => (...args) => (client ? run(...args) : checkServer(vscode, command.command));
  context.subscriptions.push(
    vscode.commands.registerCommand('snippetsLsp.ask', serving((question) => ask(vscode, client, typeof question === 'string' ? question : undefined))),
    vscode.commands.registerCommand('snippetsLsp.saveSelection', serving(() => saveSelection(vscode, client))),
    vscode.commands.registerCommand('snippetsLsp.forgetLastLesson', serving(() => forgetLast(vscode, client))),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('snippets.serverPath')) return;
      const choice = await vscode.window.showInformationMessage('Snippets: snippets.serverPath changed; reload the window to start that server.', 'Reload Window');
      if (choice === 'Reload Window') await vscode.commands.executeCommand('workbench.action.reloadWindow');
    }),
  );
  // A wrong snippets.serverPath is said in the extension's own words, naming the path and the setting.
  if (!checkServer(vscode, command.command)) return;
  client = new LanguageClient(
    'snippets',
    'Snippets',
    { run: command, debug: command },
    {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      initializationOptions: initializationOptions(configuration),
      synchronize: { configurationSection: 'snippets' },
    },
  );
  try {
    await client.start();
  } catch (error) {
    client = undefined;
    void reportStartFailure(vscode, command.command, error);
  }
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
