'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { SERVER_SETTINGS, MACHINE_SETTINGS, initializationOptions, serverCommand } = require('../src/settings');

const configuration = (values) => ({ get: (name) => values[name] });

test('set settings become initializationOptions; unset, null and empty ones are left to the server', () => {
  assert.deepEqual(initializationOptions(configuration({
    libraries: ['~/snippets'], maxCompletionItems: 20, resolveVariables: 'never', askMarker: '>>', saveTo: '', serverPath: '/x',
  })), { libraries: ['~/snippets'], maxCompletionItems: 20, resolveVariables: 'never', askMarker: '>>' });
  assert.deepEqual(initializationOptions(configuration({ libraries: [], saveTo: null, model: {} })), {});
});

test('the model setting is sent at start', () => {
  const model = { url: 'http://127.0.0.1:8080', candidates: 4 };
  assert.deepEqual(initializationOptions(configuration({ model })), { model });
});

test('packaging asks no questions: no made-up repository, vsce told so, license and a LICENSE file are there', () => {
  const root = path.join(__dirname, '..');
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  // vsce asks about a missing repository unless told to allow it; the project publishes no URL to name.
  assert.equal(manifest.repository, undefined, 'a repository URL nobody publishes');
  assert.match(manifest.scripts.package, /^vsce package .*--allow-missing-repository/);
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  assert.match(readme, /npm run package/, 'the README packages through the script that passes the flag');
  assert.equal(manifest.license, 'MIT');
  assert.match(fs.readFileSync(path.join(root, 'LICENSE'), 'utf8'), /^MIT License/);
  const model = manifest.contributes.configuration.properties['snippets.model'];
  assert.deepEqual(Object.keys(model.properties).sort(), ['apiKeyEnvironmentVariable', 'candidates', 'name', 'role', 'timeoutSeconds', 'url']);
});

test('the server command defaults to snippets-lsp serve', () => {
  assert.deepEqual(serverCommand(configuration({})), { command: 'snippets-lsp', args: ['serve'] });
  assert.deepEqual(serverCommand(configuration({ serverPath: '/opt/bin/snippets-lsp' })), { command: '/opt/bin/snippets-lsp', args: ['serve'] });
});

test('package.json declares every server setting and the commands extension.js registers', () => {
  const root = path.join(__dirname, '..');
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const declared = Object.keys(manifest.contributes.configuration.properties).map((key) => key.replace(/^snippets\./, ''));
  for (const name of SERVER_SETTINGS) assert.ok(declared.includes(name), `snippets.${name} is not declared`);
  const source = fs.readFileSync(path.join(root, 'src', 'extension.js'), 'utf8');
  const registered = [...source.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]).sort();
  assert.deepEqual(manifest.contributes.commands.map((c) => c.command).sort(), registered);
  assert.equal(manifest.contributes.commands.find((c) => c.command === 'snippetsLsp.ask').title, 'Ask…');
  assert.ok(manifest.dependencies['vscode-languageclient']);
});

test('the program to run, the model and where snippets are written are machine-scoped: a workspace settings file cannot set them', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  // Written out, not read from MACHINE_SETTINGS: a repository's .vscode/settings.json must not pick the library
  // layers (and so which are writable) nor the file saves go to.
  for (const name of ['serverPath', 'model', 'libraries', 'saveTo']) assert.ok(MACHINE_SETTINGS.includes(name), name);
  for (const name of MACHINE_SETTINGS) {
    assert.equal(manifest.contributes.configuration.properties[`snippets.${name}`].scope, 'machine', `snippets.${name}`);
  }
  const model = { url: 'http://127.0.0.1:8080', apiKeyEnvironmentVariable: 'OPENAI_API_KEY' };
  assert.deepEqual(initializationOptions(configuration({ model })), { model });
});
