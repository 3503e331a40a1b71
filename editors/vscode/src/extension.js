'use strict';
// Wiring only: starts the language client and registers the commands; the logic is in ask.js, save.js and
// settings.js (tested with `node --test` against a fake vscode API).
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');
const { initializationOptions, serverCommand } = require('./settings');
const { ask } = require('./ask');
const { saveSelection } = require('./save');

let client;

async function activate(context) {
  const configuration = vscode.workspace.getConfiguration('snippets');
  const command = serverCommand(configuration);
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
  context.subscriptions.push(
    vscode.commands.registerCommand('snippetsLsp.ask', (question) => ask(vscode, client, typeof question === 'string' ? question : undefined)),
    vscode.commands.registerCommand('snippetsLsp.saveSelection', () => saveSelection(vscode, client)),
  );
  await client.start();
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
