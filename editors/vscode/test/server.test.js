'use strict';
// A missing or wrong snippets.serverPath: the extension says what is wrong, naming the path and the setting, with a
// button that opens the setting.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serverProblem, checkServer, reportServerProblem, reportStartFailure } = require('../src/server');
const { serverCommand } = require('../src/settings');
const { makeVSCode } = require('./fake-vscode');

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'snippets-serverpath-'));
const program = path.join(folder, 'snippets-lsp');
fs.writeFileSync(program, '#!/bin/sh\n');
fs.chmodSync(program, 0o755);
const plain = path.join(folder, 'notes.txt');
fs.writeFileSync(plain, 'not a program');
fs.chmodSync(plain, 0o644);
const linux = { env: { PATH: folder, HOME: '/home/me' }, platform: 'linux' };

test('a path that does not exist is named with the setting and how to fix it', () => {
  const missing = path.join(folder, 'gone', 'snippets-lsp');
  assert.equal(serverProblem(missing, linux),
    `snippets.serverPath is '${missing}', which does not exist: set snippets.serverPath to the full path of the snippets-lsp program (User settings), or clear it to use snippets-lsp from PATH.`);
});

test('a folder, a file that is not executable, a relative path and ~ are each said as such', () => {
  assert.match(serverProblem(folder, linux), /^snippets\.serverPath is '.*', a folder, not the snippets-lsp program/);
  assert.match(serverProblem(plain, linux), /which is not executable: run chmod \+x on it/);
  assert.match(serverProblem('bin/snippets-lsp', linux), /^snippets\.serverPath is 'bin\/snippets-lsp', a relative path/);
  assert.equal(serverProblem('~/bin/snippets-lsp', linux),
    "snippets.serverPath is '~/bin/snippets-lsp', but '~' is not expanded there: write the full path (for example /home/me/bin/snippets-lsp).");
});

test('a name is looked up on PATH: found, nothing to say; not found, says so', () => {
  assert.equal(serverProblem(program, linux), null);
  assert.equal(serverProblem('snippets-lsp', linux), null);
  const notOnPath = serverProblem(serverCommand({ get: () => undefined }).command, { env: { PATH: os.tmpdir() }, platform: 'linux' });
  assert.match(notOnPath, /^the server program 'snippets-lsp' is not on PATH \(snippets\.serverPath\): install snippets-lsp/);
  // A non-executable file of that name on PATH does not count.
  assert.notEqual(serverProblem('notes.txt', linux), null);
});

test('a wrong path is shown as an error with a button that opens the setting', async () => {
  const missing = path.join(folder, 'gone');
  const vscode = makeVSCode({ choices: ['Open Settings'] });
  assert.equal(checkServer(vscode, missing, linux), false);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(vscode.log[0], ['error', `Snippets: snippets.serverPath is '${missing}', which does not exist: set snippets.serverPath to the full path of the snippets-lsp program (User settings), or clear it to use snippets-lsp from PATH.`, 'Open Settings']);
  assert.deepEqual(vscode.log[1], ['command', 'workbench.action.openSettings', 'snippets.serverPath']);

  const dismissed = makeVSCode({ choices: [undefined] });
  await reportServerProblem(dismissed, 'x');
  assert.deepEqual(dismissed.log, [['error', 'Snippets: x', 'Open Settings']], 'dismissed: no settings opened');

  const fine = makeVSCode();
  assert.equal(checkServer(fine, program, linux), true);
  assert.deepEqual(fine.log, []);
});

test('a program that is there but fails to start is named with the setting too', async () => {
  const vscode = makeVSCode({ choices: [undefined] });
  await reportStartFailure(vscode, program, new Error('spawn EACCES'));
  assert.deepEqual(vscode.log, [['error', `Snippets: the server '${program}' (snippets.serverPath) could not be started: spawn EACCES. Check that it is snippets-lsp and runs (snippets-lsp --version).`, 'Open Settings']]);
});

test.after(() => fs.rmSync(folder, { recursive: true, force: true }));

/** Loads src/extension.js with the fake `vscode` and a fake language client whose starts are recorded. */
function loadExtension(vscode, { startFails = false } = {}) {
  const Module = require('node:module');
  const started = [];
  class LanguageClient {
    constructor(id, name, server) { this.server = server; }
    async start() { started.push(this.server.run.command); if (startFails) throw new Error('spawn ENOENT'); }
    async stop() {}
  }
  const fakes = { vscode, 'vscode-languageclient/node': { LanguageClient } };
  const load = Module._load;
  Module._load = function (request, ...rest) { return request in fakes ? fakes[request] : load.call(this, request, ...rest); };
  try {
    const file = require.resolve('../src/extension');
    delete require.cache[file];
    return { extension: require(file), started };
  } finally {
    Module._load = load;
  }
}

function activationFakes(serverPath, options) {
  const vscode = makeVSCode(options);
  vscode.workspace.getConfiguration = () => ({ get: (name) => (name === 'serverPath' ? serverPath : undefined) });
  vscode.workspace.onDidChangeConfiguration = () => ({ dispose() {} });
  vscode.commands.registerCommand = (name, run) => { vscode.registered = { ...vscode.registered, [name]: run }; return { dispose() {} }; };
  return vscode;
}

test('activating with a wrong serverPath starts nothing and says what to fix; the commands say it again', async () => {
  const missing = path.join(folder, 'gone');
  const vscode = activationFakes(missing, { choices: [undefined, undefined] });
  const { extension, started } = loadExtension(vscode);
  await extension.activate({ subscriptions: [] });
  assert.deepEqual(started, []);
  assert.match(vscode.log[0][1], new RegExp(`^Snippets: snippets\\.serverPath is '${missing}', which does not exist`));
  assert.equal(vscode.log[0][2], 'Open Settings');
  await vscode.registered['snippetsLsp.ask']();
  assert.equal(vscode.log.length, 2, 'the ask command repeats the problem instead of failing');
  assert.match(vscode.log[1][1], /which does not exist/);
});

test('activating with a good serverPath starts it; a failed start is reported naming the setting', async () => {
  const good = activationFakes(program);
  const { extension, started } = loadExtension(good);
  await extension.activate({ subscriptions: [] });
  assert.deepEqual(started, [program]);
  assert.deepEqual(good.log, []);

  const failing = activationFakes(program, { choices: [undefined] });
  const loaded = loadExtension(failing, { startFails: true });
  await loaded.extension.activate({ subscriptions: [] });
  await new Promise((resolve) => setImmediate(resolve));
  assert.match(failing.log[0][1], /could not be started: spawn ENOENT/);
  assert.match(failing.log[0][1], /snippets\.serverPath/);
});
