'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { makeVSCode, makeEditor, makeClient, Position } = require('./fake-vscode');
const { ask, forgetLast } = require('../src/ask');

const location = (line) => ({ uri: `file:///home/me/snippets/writing.code-snippets`, range: { start: { line, character: 2 }, end: { line: line + 3, character: 3 } } });
const ANSWERED = {
  status: 'answered',
  answer: 'Your library has "Gentle payment reminder".',
  searchTerms: ['remind', 'overdue'],
  citations: [{ id: 'b', title: 'Gentle payment reminder', answerRange: { start: 18, end: 41 }, location: location(18) }],
  candidates: [
    { id: 'a', title: 'Invoice payment terms', location: location(10) },
    { id: 'b', title: 'Gentle payment reminder', location: location(18) },
  ],
};
const DOC = 'file:///home/me/mail.md';

test('asks with the input box, shows progress, then a quick pick titled with the answer, cited first', async () => {
  const editor = makeEditor(DOC, { line: 3, character: 5 });
  const vscode = makeVSCode({ inputs: ['how do I remind a client?'], editor });
  const client = makeClient({ 'snippets/ask': ANSWERED });
  const pick = await ask(vscode, client);
  assert.deepEqual(client.requests[0], {
    method: 'snippets/ask',
    params: { question: 'how do I remind a client?', textDocument: { uri: DOC }, position: { line: 3, character: 5 } },
  });
  assert.deepEqual(vscode.log[1], ['progress', 'Asking your snippets…', 15, true]);
  assert.equal(pick.title, 'Your library has "Gentle payment reminder".');
  assert.deepEqual(pick.items.map((i) => [i.label, i.description, i.detail]), [
    ['$(check) Gentle payment reminder', 'cited', 'snippets/writing.code-snippets:19'],
    ['Invoice payment terms', undefined, 'snippets/writing.code-snippets:11'],
  ]);
  assert.equal(pick.visible, true);
});

test('choosing an item inserts its snippet text as a SnippetString at the original cursor', async () => {
  const editor = makeEditor(DOC, { line: 3, character: 5 });
  const vscode = makeVSCode({ editor });
  const client = makeClient({
    'snippets/ask': ANSWERED,
    'snippets/snippetText': (params) => ({ id: params.id, title: 'Gentle payment reminder', snippet: 'Hi ${1:name}, invoice ${2:42} is overdue.', text: 'Hi name' }),
  });
  const pick = await ask(vscode, client, 'overdue invoice');
  // The cursor moves while the pick is open; the snippet still goes where the question was asked.
  editor.selection = { active: new Position(9, 0), start: new Position(9, 0), end: new Position(9, 0), isEmpty: true };
  await pick.accept(pick.items[0]);
  assert.deepEqual(client.requests[1], { method: 'snippets/snippetText', params: { id: 'b', textDocument: { uri: DOC }, position: { line: 3, character: 5 } } });
  assert.deepEqual(editor.inserted, [{ snippet: 'Hi ${1:name}, invoice ${2:42} is overdue.', position: new Position(3, 5) }]);
  assert.equal(pick.visible, false);
});

test('the item button opens the definition', async () => {
  const vscode = makeVSCode({ editor: makeEditor(DOC) });
  const pick = await ask(vscode, makeClient({ 'snippets/ask': ANSWERED }), 'overdue invoice');
  await pick.clickButton(pick.items[1]);
  const opened = vscode.log.filter((entry) => entry[0] === 'showTextDocument');
  assert.deepEqual(opened, [['showTextDocument', 'file:///home/me/snippets/writing.code-snippets', new Position(10, 2)]]);
});

test('a status other than answered shows its reason in the title', async () => {
  const result = {
    status: 'noMatch', answer: 'Nothing in your library matches "zebra".', searchTerms: ['zebra'], citations: [], candidates: [],
    reason: { code: 'nothing-retrieved', message: 'Searched for: zebra.' },
  };
  const vscode = makeVSCode({ editor: makeEditor(DOC) });
  const pick = await ask(vscode, makeClient({ 'snippets/ask': result }), 'zebra');
  assert.equal(pick.title, 'Nothing in your library matches "zebra". (Searched for: zebra.)');
  // Nothing to insert; the one item offers to save a snippet for the question.
  assert.deepEqual(pick.items.map((i) => i.label), ['$(add) Save a snippet for this question']);
  assert.equal(pick.placeholder, 'No snippets to choose from');
});

test('inserting from the answer tells the server which snippet the question meant (snippets.learn)', async () => {
  const editor = makeEditor(DOC, { line: 3, character: 5 });
  const client = makeClient({
    'snippets/ask': ANSWERED,
    'snippets/snippetText': () => ({ id: 'a', title: 'Invoice payment terms', snippet: 'Due in ${1:14} days.', text: 'Due in 14 days.' }),
    'workspace/executeCommand': { id: 'a', title: 'Invoice payment terms', learned: ['café'], path: '/lib/.snippets-learned.json' },
  });
  const pick = await ask(makeVSCode({ editor }), client, 'what do I tell the café about payment');
  await pick.accept(pick.items[1]);
  assert.deepEqual(editor.inserted.map((i) => i.snippet), ['Due in ${1:14} days.']);
  assert.deepEqual(client.requests[2], {
    method: 'workspace/executeCommand',
    params: { command: 'snippets.learn', arguments: [{ question: 'what do I tell the café about payment', id: 'a' }] },
  });
});

test('the user is told what a choice taught, and Undo (or "Forget the Last Lesson") takes it back', async () => {
  const editor = makeEditor(DOC, { line: 3, character: 5 });
  const vscode = makeVSCode({ editor, choices: ['Undo'] });
  const client = makeClient({
    'snippets/ask': ANSWERED,
    'snippets/snippetText': () => ({ id: 'a', title: 'Invoice payment terms', snippet: 'Due in ${1:14} days.', text: 'Due in 14 days.' }),
    'workspace/executeCommand': (params) => (params.command === 'snippets.learn'
      ? { id: 'a', title: 'Invoice payment terms', learned: ['café'], path: '/lib/.snippets-learned.json' }
      : { id: 'a', title: 'Invoice payment terms', forgotten: 1, forgotQuestion: true, path: '/lib/.snippets-learned.json' }),
  });
  const pick = await ask(vscode, client, 'what do I tell the café about payment');
  await pick.accept(pick.items[1]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(vscode.log.filter((e) => e[0] === 'info'), [
    ['info', 'Snippets: learned from your choice: café → Invoice payment terms', 'Undo'],
    ['info', 'Snippets: forgot what "Invoice payment terms" learned from your choice.'],
  ]);
  assert.deepEqual(client.requests[3], {
    method: 'workspace/executeCommand',
    params: { command: 'snippets.forget', arguments: [{ id: 'a', question: 'what do I tell the café about payment', words: ['café'] }] },
  });
  // Taken back once: the command has nothing more to take back, and sends nothing.
  await forgetLast(vscode, client);
  assert.equal(client.requests.length, 4);
  assert.deepEqual(vscode.log.at(-1), ['info', 'Snippets: no choice of yours taught the server anything in this session.']);
});

test('a refused snippets.learn does not bother the user; a failed insert learns nothing', async () => {
  const editor = makeEditor(DOC);
  const vscode = makeVSCode({ editor });
  const refusing = makeClient({
    'snippets/ask': ANSWERED,
    'snippets/snippetText': () => ({ id: 'b', title: 'Gentle payment reminder', snippet: 'Hi', text: 'Hi' }),
    'workspace/executeCommand': () => { throw Object.assign(new Error('Nothing learned: learning is switched off'), { code: -32803 }); },
  });
  await (await ask(vscode, refusing, 'overdue')).accept((await ask(vscode, refusing, 'overdue')).items[0]);
  assert.deepEqual(vscode.log.filter((e) => e[0] === 'error'), []);
  assert.equal(editor.inserted.length, 1);

  const failing = makeClient({ 'snippets/ask': ANSWERED, 'snippets/snippetText': () => { throw new Error('gone'); } });
  const pick = await ask(makeVSCode({ editor: makeEditor(DOC) }), failing, 'overdue');
  await pick.accept(pick.items[0]);
  assert.deepEqual(failing.requests.map((r) => r.method), ['snippets/ask', 'snippets/snippetText']);
});

test('"Save a snippet for this question" asks for the trigger, offering the derived one, and saves', async () => {
  const result = { status: 'noMatch', answer: 'Nothing in your library matches this question.', searchTerms: ['sourdough'], citations: [], candidates: [], reason: { code: 'nothing-retrieved', message: 'x' } };
  const saved = (params) => ({ path: '/lib/saved.code-snippets', id: 's1', title: 'how do I bake sourdough', trigger: params.arguments[0].trigger || 'bake-sourdough', isInLibrary: true });
  const argument = { textDocument: { uri: DOC }, range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, description: 'how do I bake sourdough' };
  for (const [typed, sent] of [['bake-sourdough', undefined], ['bread', 'bread']]) {
    const editor = makeEditor(DOC, { line: 2, character: 0 });
    const client = makeClient({ 'snippets/ask': result, 'workspace/executeCommand': saved });
    const vscode = makeVSCode({ editor, inputs: [typed] });
    const pick = await ask(vscode, client, 'how do I bake sourdough');
    await pick.accept(pick.items[0]);
    // First the names a save would use (nothing written), offered as the default; then the save itself.
    assert.deepEqual(client.requests[1].params, { command: 'snippets.saveSelection', arguments: [{ ...argument, preview: true }] });
    assert.deepEqual(vscode.log.find((e) => e[0] === 'showInputBox'), ['showInputBox', 'Trigger for this question', 'bake-sourdough']);
    assert.deepEqual(client.requests[2].params, { command: 'snippets.saveSelection', arguments: [sent ? { ...argument, trigger: sent } : argument] });
  }
  // Escape saves nothing.
  const client = makeClient({ 'snippets/ask': result, 'workspace/executeCommand': saved });
  const pick = await ask(makeVSCode({ editor: makeEditor(DOC), inputs: [undefined] }), client, 'how do I bake sourdough');
  await pick.accept(pick.items[0]);
  assert.equal(client.requests.length, 2, 'only the preview');
});

test('Escape in the input box asks nothing; Cancel on the progress stops quietly', async () => {
  const vscode = makeVSCode({ inputs: [undefined], editor: makeEditor(DOC) });
  const client = makeClient({ 'snippets/ask': ANSWERED });
  assert.equal(await ask(vscode, client), undefined);
  assert.equal(client.requests.length, 0);

  const cancelling = makeVSCode({ editor: makeEditor(DOC), cancelProgress: true });
  const slow = makeClient({
    'snippets/ask': (_params, token) => new Promise((_resolve, reject) => {
      token.onCancellationRequested(() => reject(Object.assign(new Error('request cancelled'), { code: -32800 })));
    }),
  });
  assert.equal(await ask(cancelling, slow, 'overdue'), undefined);
  assert.equal(cancelling.window.quickPicks.length, 0);
  assert.deepEqual(cancelling.log.filter((e) => e[0] === 'error'), []);
});

test('a server error is shown, and no pick opens', async () => {
  const vscode = makeVSCode({ editor: makeEditor(DOC) });
  const client = makeClient({ 'snippets/ask': () => { throw Object.assign(new Error('snippets/ask: the snippet library is still loading; ask again in a moment'), { code: -32803 }); } });
  assert.equal(await ask(vscode, client, 'overdue'), undefined);
  assert.deepEqual(vscode.log.at(-1), ['error', 'Snippets: snippets/ask: the snippet library is still loading; ask again in a moment']);
});
