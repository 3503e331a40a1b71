'use strict';
// Whether the server program `snippets.serverPath` names can be started, and telling the user what to fix when it
// cannot: without this, a wrong path shows only the language client's own "couldn't start client" error, which
// names neither the setting nor the path.

const nodeFs = require('node:fs');
const nodePath = require('node:path');

const SETTING = 'snippets.serverPath';
const OPEN_SETTINGS = 'Open Settings';

/**
 * Why `command` (the program `serverCommand` gives) cannot be run, as a sentence naming the path and the setting,
 * or null when it can. A name without a directory is looked up on PATH; a path must be an executable file.
 * `system` ({fs, env, platform}) is for tests.
 */
function serverProblem(command, { fs = nodeFs, env = process.env, platform = process.platform } = {}) {
  const path = platform === 'win32' ? nodePath.win32 : nodePath.posix;
  const isFile = (candidate) => {
    try { return fs.statSync(candidate).isFile(); } catch { return false; }
  };
  const isExecutable = (candidate) => {
    if (platform === 'win32') return true;
    try { fs.accessSync(candidate, fs.constants.X_OK); return true; } catch { return false; }
  };
  const fix = `set ${SETTING} to the full path of the snippets-lsp program (User settings), or clear it to use snippets-lsp from PATH`;
  if (typeof command !== 'string' || command.trim() === '') return `${SETTING} is empty: ${fix}.`;
  if (command.startsWith('~')) {
    return `${SETTING} is '${command}', but '~' is not expanded there: write the full path (for example ${path.join(env.HOME || '/home/you', command.slice(2))}).`;
  }
  const hasDirectory = command.includes('/') || (platform === 'win32' && command.includes('\\'));
  if (!hasDirectory) {
    const extensions = platform === 'win32' ? ['', ...(env.PATHEXT || '.EXE;.CMD;.BAT').split(';')] : [''];
    const directories = (env.PATH || env.Path || '').split(path.delimiter).filter(Boolean);
    for (const directory of directories) {
      for (const extension of extensions) {
        const candidate = path.join(directory, command + extension);
        if (isFile(candidate) && isExecutable(candidate)) return null;
      }
    }
    return `the server program '${command}' is not on PATH (${SETTING}): install snippets-lsp (see its README), or ${fix}.`;
  }
  if (!path.isAbsolute(command)) {
    return `${SETTING} is '${command}', a relative path: ${fix}.`;
  }
  let stat;
  try {
    stat = fs.statSync(command);
  } catch {
    return `${SETTING} is '${command}', which does not exist: ${fix}.`;
  }
  if (stat.isDirectory()) return `${SETTING} is '${command}', a folder, not the snippets-lsp program: ${fix}.`;
  if (!stat.isFile()) return `${SETTING} is '${command}', which is not a file: ${fix}.`;
  if (!isExecutable(command)) return `${SETTING} is '${command}', which is not executable: run chmod +x on it, or ${fix}.`;
  return null;
}

/** Shows `problem` as an error with a button that opens the setting. */
async function reportServerProblem(vscode, problem) {
  const choice = await vscode.window.showErrorMessage(`Snippets: ${problem}`, OPEN_SETTINGS);
  if (choice === OPEN_SETTINGS) await vscode.commands.executeCommand('workbench.action.openSettings', SETTING);
}

/**
 * Whether the server can be started with `command`; when not, tells the user what to fix (without waiting for
 * them to answer: activation must not hang on a notification).
 */
function checkServer(vscode, command, system) {
  const problem = serverProblem(command, system);
  if (problem === null) return true;
  void reportServerProblem(vscode, problem);
  return false;
}

/** Tells the user that starting `command` failed anyway (it exited at once, it is not snippets-lsp...). */
function reportStartFailure(vscode, command, error) {
  const detail = error && error.message ? error.message : String(error);
  return reportServerProblem(vscode, `the server '${command}' (${SETTING}) could not be started: ${detail}. Check that it is snippets-lsp and runs (snippets-lsp --version).`);
}

module.exports = { SETTING, OPEN_SETTINGS, serverProblem, reportServerProblem, checkServer, reportStartFailure };
