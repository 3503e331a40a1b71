'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { makeVSCode, makeEditor, makeClient, Position } = require('./fake-vscode');
const { saveSelection } = require('../src/save');

const DOC = 'file:///home/me/mail.md';
const selection = { start: new Position(1, 0), end: new Position(2, 4), active: new Position(2, 4), isEmpty: false };

test('asks for a trigger and a title and sends snippets.saveSelection with the selection', async () => {
  const vscode = makeVSCode({ inputs: ['  thx ', 'Thanks note'], editor: makeEditor(DOC, { selection }) });
  const reply = { path: '/home/me/snippets/saved.code-snippets', id: 'x', title: 'Thanks note', trigger: 'thx', isInLibrary: true };
  const client = makeClient({ 'workspace/executeCommand': reply });
  assert.deepEqual(await saveSelection(vscode, client), reply);
  assert.deepEqual(client.requests, [{
    method: 'workspace/executeCommand',
    params: { command: 'snippets.saveSelection', arguments: [{
      textDocument: { uri: DOC }, range: { start: { line: 1, character: 0 }, end: { line: 2, character: 4 } }, trigger: 'thx', title: 'Thanks note',
    }] },
  }]);
});

test('empty answers leave the names to the server; Escape saves nothing', async () => {
  const client = makeClient({ 'workspace/executeCommand': {} });
  await saveSelection(makeVSCode({ inputs: ['', ''], editor: makeEditor(DOC, { selection }) }), client);
  assert.equal('trigger' in client.requests[0].params.arguments[0], false);
  assert.equal('title' in client.requests[0].params.arguments[0], false);

  const none = makeClient({});
  assert.equal(await saveSelection(makeVSCode({ inputs: ['thx', undefined], editor: makeEditor(DOC, { selection }) }), none), undefined);
  assert.equal(none.requests.length, 0);
});

test('without a selection it says so; a refusal (shown by the server) resolves quietly', async () => {
  const vscode = makeVSCode({ editor: makeEditor(DOC) });
  assert.equal(await saveSelection(vscode, makeClient({})), undefined);
  assert.deepEqual(vscode.log, [['warning', 'Snippets: select the text to save first.']]);

  const refusing = makeClient({ 'workspace/executeCommand': () => { throw Object.assign(new Error('Snippet not saved: the trigger "sig" is already used by "Signature"; choose another'), { code: -32803 }); } });
  const quiet = makeVSCode({ inputs: ['sig', ''], editor: makeEditor(DOC, { selection }) });
  assert.equal(await saveSelection(quiet, refusing), undefined);
  assert.deepEqual(quiet.log.filter((e) => e[0] === 'error'), []);
});
