'use strict';
// The extension's settings (section `snippets`) as the server's initializationOptions.

/** The server settings read from the `snippets` section; `serverPath` is the extension's own. */
const SERVER_SETTINGS = ['libraries', 'maxCompletionItems', 'resolveVariables', 'choices', 'askMarker', 'saveTo', 'learning', 'model'];

/** Settings a workspace must not set (package.json gives them `"scope": "machine"`, so VS Code ignores workspace
 * values): the program to run, where questions and an API key are sent, and where snippets are written. */
const MACHINE_SETTINGS = ['serverPath', 'model', 'libraries', 'saveTo'];

/**
 * initializationOptions from a WorkspaceConfiguration-like object (`get(name)`): every server setting that is
 * set (not undefined or null) is passed through; empty strings, arrays and objects mean "use the default".
 */
function initializationOptions(configuration) {
  const options = {};
  for (const name of SERVER_SETTINGS) {
    const value = configuration.get(name);
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    options[name] = value;
  }
  return options;
}

/** The server command: `snippets.serverPath` (default `snippets-lsp`) with `serve`. */
function serverCommand(configuration) {
  return { command: configuration.get('serverPath') || 'snippets-lsp', args: ['serve'] };
}

module.exports = { SERVER_SETTINGS, MACHINE_SETTINGS, initializationOptions, serverCommand };
