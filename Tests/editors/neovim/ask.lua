-- Headless Neovim (0.12) with the editors/neovim plugin: :SnippetsAsk shows the answer window, <CR> inserts the
-- cited snippet at the original cursor through vim.snippet.expand, gd jumps to its definition, an ask can be
-- cancelled, a status other than `answered` shows its reason, and :SnippetsSave's glue saves lines.
--
-- Environment: SNIPPETS_LSP_BIN, SNIPPETS_TEST_LIBRARY, SNIPPETS_TEST_WORKDIR, SNIPPETS_TEST_RESULT,
-- SNIPPETS_PLUGIN_DIR. Writes one JSON object to SNIPPETS_TEST_RESULT: {ok, stage, error?, ...observations}.

local bin = assert(os.getenv('SNIPPETS_LSP_BIN'), 'SNIPPETS_LSP_BIN unset')
local library = assert(os.getenv('SNIPPETS_TEST_LIBRARY'), 'SNIPPETS_TEST_LIBRARY unset')
local workdir = assert(os.getenv('SNIPPETS_TEST_WORKDIR'), 'SNIPPETS_TEST_WORKDIR unset')
local result_path = assert(os.getenv('SNIPPETS_TEST_RESULT'), 'SNIPPETS_TEST_RESULT unset')
local plugin_dir = assert(os.getenv('SNIPPETS_PLUGIN_DIR'), 'SNIPPETS_PLUGIN_DIR unset')
local step_timeout_ms = tonumber(os.getenv('SNIPPETS_TEST_STEP_MS') or '10000')

local result = { ok = false, stage = 'start', nvim_version = tostring(vim.version()), notifications = {} }

local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
  .new(result, result_path, step_timeout_ms)
local finish, run = harness.finish, harness.run

vim.notify = function(message, level)
  table.insert(result.notifications, message)
end

vim.opt.runtimepath:prepend(plugin_dir)
vim.cmd.runtime('plugin/snippets_lsp.lua')
local snippets = require('snippets_lsp')
snippets.setup({
  cmd = { bin, 'serve' },
  root_markers = { '.snippets-root' },
  settings = { libraries = { library } },
})

local client ---@type vim.lsp.Client
local note

local function window_state()
  local state = snippets.window
  if not (state and vim.api.nvim_win_is_valid(state.win)) then
    return nil
  end
  local marks = vim.api.nvim_buf_get_extmarks(state.buf, snippets.namespace, 0, -1, { details = true })
  return {
    lines = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false),
    cursor = vim.api.nvim_win_get_cursor(state.win),
    extmarks = vim.tbl_map(function(m)
      return { row = m[2], col = m[3], end_col = m[4].end_col, hl_group = m[4].hl_group }
    end, marks),
    is_current = vim.api.nvim_get_current_win() == state.win,
  }
end

run({
  { 'open buffer', function()
    vim.cmd.edit(vim.fs.joinpath(workdir, 'note.md'))
    note = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'Intro:', '' })
    return true
  end },
  { 'attach', function()
    client = snippets.client(0)
    if client and client.initialized then
      result.offset_encoding = client.offset_encoding
      return true
    end
  end },
  { 'library loaded', function()
    -- The server loads the library after answering `initialize`; asking before that is "still loading".
    local responses = vim.lsp.buf_request_sync(0, 'snippets/ask', { question = 'überfällige rechnung' }, step_timeout_ms)
    local response = responses and responses[client.id]
    return response and response.result and response.result.status == 'answered'
  end },
  { 'ask', function()
    vim.api.nvim_win_set_cursor(0, { 2, 0 })
    vim.cmd('SnippetsAsk überfällige rechnung')
    return true
  end },
  { 'answer window', function()
    local state = window_state()
    if state then
      result.answer_window = state
      return true
    end
  end },
  { 'insert', function()
    vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'mt', false)
    return true
  end },
  { 'inserted', function()
    local lines = vim.api.nvim_buf_get_lines(note, 0, -1, false)
    if snippets.window == nil and vim.api.nvim_get_current_buf() == note and lines[2] ~= '' then
      result.mode_after_insert = vim.api.nvim_get_mode().mode
      result.snippet_active = vim.snippet.active()
      vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'nt', false)
      return true
    end
  end },
  { 'normal mode', function()
    if vim.api.nvim_get_mode().mode == 'n' then
      result.lines_after_insert = vim.api.nvim_buf_get_lines(note, 0, -1, false)
      return true
    end
  end },
  { 'ask again', function()
    vim.cmd('SnippetsAsk overdue invoice reminder')
    return true
  end },
  { 'second window', function()
    local state = window_state()
    if state then
      result.second_window = state
      -- Move to the second snippet it looked at (not cited), then jump.
      vim.api.nvim_win_set_cursor(snippets.window.win, { state.cursor[1] + 1, 0 })
      vim.api.nvim_feedkeys('gd', 'mt', false)
      return true
    end
  end },
  { 'definition', function()
    local name = vim.api.nvim_buf_get_name(0)
    if name:match('t%.code%-snippets$') then
      result.definition = { name = name, cursor = vim.api.nvim_win_get_cursor(0) }
      return true
    end
  end },
  { 'cancel', function()
    vim.api.nvim_set_current_buf(note)
    snippets.ask('invoice footer')
    result.asking_before_cancel = snippets.is_asking()
    vim.api.nvim_feedkeys(vim.keycode('<C-c>'), 'mt', false)
    return true
  end },
  { 'cancelled', function()
    if not snippets.is_asking() then
      result.cancel_started = vim.uv.now()
      return true
    end
  end },
  { 'no window after cancel', function()
    if vim.uv.now() - result.cancel_started > 500 then
      result.window_after_cancel = snippets.window ~= nil
      return true
    end
  end },
  { 'ask with no match, prompting', function()
    -- Without an argument the command prompts (vim.ui.input) for the question.
    vim.ui.input = function(opts, on_confirm)
      result.prompt = opts.prompt
      on_confirm('zebra migration patterns')
    end
    vim.cmd('SnippetsAsk')
    return true
  end },
  { 'no-match window', function()
    local state = window_state()
    if state then
      result.no_match_window = state
      snippets.close()
      return true
    end
  end },
  { 'save lines', function()
    vim.api.nvim_buf_set_lines(note, 0, -1, false, { 'Kind regards, Mira' })
    snippets.save({ line1 = 1, line2 = 1, trigger = 'kr', title = 'Kind regards', on_done = function(err, reply)
      result.save = { err = err, reply = reply }
    end })
    return true
  end },
  { 'saved', function()
    return result.save ~= nil
  end },
})

vim.defer_fn(function()
  finish(false, 'overall timeout at stage ' .. result.stage)
end, 60000)
