'use strict';
// "Snippets: Ask…": an input box, a progress notification while the server answers, then a quick pick titled
// with the answer that lists the snippets it looked at (cited first). Choosing one inserts it as a SnippetString
// at the cursor the question was asked from and tells the server (`snippets.learn`) so the question's words count
// for that snippet next time; the item's button opens its definition. A declined ask (`noMatch`) offers "Save a
// snippet for this question" (the selection, or an empty body, described by the question). The `vscode` API and
// the language client are passed in, so tests run this against fakes.

/** The button on each item that opens the snippet's entry in its file. */
function definitionButton(vscode) {
  return { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: 'Open definition' };
}

/** Where a location points, as `path:line` (1-based). */
function fileLine(vscode, location) {
  const uri = vscode.Uri.parse(location.uri);
  return `${vscode.workspace.asRelativePath(uri)}:${location.range.start.line + 1}`;
}

/** Quick pick items for an ask result: cited snippets first (marked), then the rest, each with its place. */
function pickItems(vscode, result) {
  const cited = new Set((result.citations || []).map((c) => c.id));
  const candidates = [...(result.candidates || [])];
  candidates.sort((a, b) => Number(cited.has(b.id)) - Number(cited.has(a.id)));
  return candidates.map((candidate) => ({
    label: (cited.has(candidate.id) ? '$(check) ' : '') + candidate.title,
    description: cited.has(candidate.id) ? 'cited' : undefined,
    detail: fileLine(vscode, candidate.location),
    buttons: [definitionButton(vscode)],
    candidate,
  }));
}

/** The quick pick's title: the answer, and the reason when the status is not `answered`. */
function pickTitle(result) {
  if (result.status !== 'answered' && result.reason && result.reason.message !== result.answer) {
    return `${result.answer} (${result.reason.message})`;
  }
  return result.answer;
}

/** Opens a snippet's entry in its library file. */
async function openDefinition(vscode, location) {
  const start = new vscode.Position(location.range.start.line, location.range.start.character);
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(location.uri));
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(start, start) });
}

/** Inserts the snippet `candidate` names at `origin` ({editor, position}) as a SnippetString. */
async function insertSnippet(vscode, client, candidate, origin) {
  const params = { id: candidate.id };
  if (origin.editor) {
    params.textDocument = { uri: origin.editor.document.uri.toString() };
    params.position = { line: origin.position.line, character: origin.position.character };
  }
  const text = await client.sendRequest('snippets/snippetText', params);
  if (!origin.editor) {
    await vscode.env.clipboard.writeText(text.text);
    vscode.window.showInformationMessage(`No editor was open: "${text.title}" is on the clipboard.`);
    return;
  }
  await origin.editor.insertSnippet(new vscode.SnippetString(text.snippet), origin.position);
}

/** The item a declined ask adds: save a snippet for the question. */
const SAVE_ITEM = {
  label: '$(add) Save a snippet for this question',
  detail: 'The selection (or an empty body), with the question as its description, so the next ask finds it',
  saveQuestion: true,
};

/** What the last insert from an answer taught the server ({ client, question, id, result }), for "Forget the Last
 *  Lesson". */
let lastLesson;

/** The message for what one choice taught the server (a `snippets.learn` result); undefined when nothing was written. */
function learnedMessage(result) {
  if (!result || !result.path) return undefined;
  const what = result.learned && result.learned.length ? result.learned.join(', ') : 'this question';
  return `Snippets: learned from your choice: ${what} → ${result.title}`;
}

/** Tells the server that `candidate` was chosen for `question` (`snippets.learn`) and says what it learned, with an
 *  Undo button ("Snippets: Forget the Last Lesson" does the same later). A refusal (learning switched off, a
 *  read-only library) is not worth interrupting the user for: the snippet is inserted either way. */
async function learn(client, question, candidate, vscode) {
  let result;
  try {
    result = await client.sendRequest('workspace/executeCommand', { command: 'snippets.learn', arguments: [{ question, id: candidate.id }] });
  } catch (_error) {
    return undefined;
  }
  const message = learnedMessage(result);
  if (message) {
    lastLesson = { client, question, id: candidate.id, result };
    if (vscode) {
      // Not awaited: the message stays until the user dismisses it.
      void Promise.resolve(vscode.window.showInformationMessage(message, 'Undo')).then((choice) => {
        if (choice === 'Undo') return forgetLast(vscode, client);
        return undefined;
      });
    }
  }
  return result;
}

/** Takes back what the last insert from an answer taught the server (`snippets.forget` with the words its
 *  `snippets.learn` reported), so a wrong choice is undone without a shell. */
async function forgetLast(vscode, client) {
  const lesson = lastLesson;
  if (!lesson || (client && lesson.client !== client)) {
    vscode.window.showInformationMessage('Snippets: no choice of yours taught the server anything in this session.');
    return undefined;
  }
  let result;
  try {
    result = await lesson.client.sendRequest('workspace/executeCommand', {
      command: 'snippets.forget',
      arguments: [{ id: lesson.id, question: lesson.question, words: lesson.result.learned || [] }],
    });
  } catch (error) {
    vscode.window.showErrorMessage(`Snippets: ${error && error.message ? error.message : error}`);
    return undefined;
  }
  lastLesson = undefined;
  vscode.window.showInformationMessage(result.forgotten > 0 || result.forgotQuestion
    ? `Snippets: forgot what "${result.title}" learned from your choice.`
    : `Snippets: "${result.title}" had nothing left to forget.`);
  return result;
}

/** Saves the selection at `origin` (or an empty body) as a snippet described by `question`, through the server's
 *  save path (`snippets.saveSelection`), which tells the user what it did. Asks for the trigger first, offering the
 *  one the server derives (a `preview`, which writes nothing); Escape saves nothing. */
async function saveForQuestion(vscode, client, question, origin) {
  if (!origin.editor) {
    vscode.window.showWarningMessage('Snippets: open a file first; the snippet is saved from its selection.');
    return undefined;
  }
  const selection = origin.selection;
  const argument = {
    textDocument: { uri: origin.editor.document.uri.toString() },
    range: { start: { line: selection.start.line, character: selection.start.character }, end: { line: selection.end.line, character: selection.end.character } },
    description: question,
  };
  let preview;
  try {
    preview = await client.sendRequest('workspace/executeCommand', { command: 'snippets.saveSelection', arguments: [{ ...argument, preview: true }] });
  } catch (error) {
    // A preview is refused without a message of the server's own (nothing was being saved yet).
    vscode.window.showErrorMessage(`Snippets: ${error && error.message ? error.message : error}`);
    return undefined;
  }
  const trigger = await vscode.window.showInputBox({ prompt: 'Trigger for this question', value: preview.trigger });
  if (trigger === undefined) return undefined;
  // The default unchanged (or emptied): the server derives it again, stepping around a clash made meanwhile.
  if (trigger.trim() && trigger.trim() !== preview.trigger) argument.trigger = trigger.trim();
  try {
    return await client.sendRequest('workspace/executeCommand', { command: 'snippets.saveSelection', arguments: [argument] });
  } catch (_error) {
    return undefined; // the server sent the reason as window/showMessage
  }
}

/**
 * Runs the ask flow. `question` skips the input box. Resolves once the quick pick is shown (with it), or with
 * undefined when the user gave no question or cancelled.
 */
async function ask(vscode, client, question) {
  const editor = vscode.window.activeTextEditor;
  const origin = { editor, position: editor ? editor.selection.active : undefined, selection: editor ? editor.selection : undefined };
  if (question === undefined) {
    question = await vscode.window.showInputBox({ prompt: 'Ask your snippets', placeHolder: 'how do I remind a client about an overdue invoice?' });
  }
  if (!question || !question.trim()) return undefined;
  const params = { question };
  if (editor) {
    params.textDocument = { uri: editor.document.uri.toString() };
    params.position = { line: origin.position.line, character: origin.position.character };
  }
  let result;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Asking your snippets…', cancellable: true },
      (_progress, token) => client.sendRequest('snippets/ask', params, token),
    );
  } catch (error) {
    if (error && (error.code === -32800 || error.name === 'Canceled' || error.message === 'Canceled')) return undefined;
    vscode.window.showErrorMessage(`Snippets: ${error && error.message ? error.message : error}`);
    return undefined;
  }
  const pick = vscode.window.createQuickPick();
  pick.title = pickTitle(result);
  const candidates = pickItems(vscode, result);
  pick.items = result.status === 'noMatch' ? [...candidates, SAVE_ITEM] : candidates;
  pick.placeholder = candidates.length ? 'Choose a snippet to insert' : 'No snippets to choose from';
  pick.matchOnDetail = true;
  pick.onDidAccept(async () => {
    const [chosen] = pick.selectedItems;
    pick.hide();
    if (chosen && chosen.saveQuestion) {
      await saveForQuestion(vscode, client, question, origin);
    } else if (chosen) {
      try {
        await insertSnippet(vscode, client, chosen.candidate, origin);
      } catch (error) {
        vscode.window.showErrorMessage(`Snippets: ${error && error.message ? error.message : error}`);
        return;
      }
      await learn(client, question, chosen.candidate, vscode);
    }
  });
  pick.onDidTriggerItemButton(async (event) => {
    pick.hide();
    await openDefinition(vscode, event.item.candidate.location);
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
  return pick;
}

module.exports = { ask, pickItems, pickTitle, insertSnippet, openDefinition, learn, learnedMessage, forgetLast, saveForQuestion, SAVE_ITEM };
