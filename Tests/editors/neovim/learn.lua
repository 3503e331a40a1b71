-- Headless Neovim (0.12) with the editors/neovim plugin: inserting a snippet from the answer window sends
-- `snippets.learn` with the question, so the same question is answered next time; a declined ask offers
-- "save a snippet for this question", which asks for a trigger (the server's derived one as the default), saves
-- an empty snippet described by the question and opens it at its empty body.
--
-- Environment: as ask.lua. Writes one JSON object to SNIPPETS_TEST_RESULT: {ok, stage, error?, ...observations}.

local bin = assert(os.getenv('SNIPPETS_LSP_BIN'), 'SNIPPETS_LSP_BIN unset')
local library = assert(os.getenv('SNIPPETS_TEST_LIBRARY'), 'SNIPPETS_TEST_LIBRARY unset')
local workdir = assert(os.getenv('SNIPPETS_TEST_WORKDIR'), 'SNIPPETS_TEST_WORKDIR unset')
local result_path = assert(os.getenv('SNIPPETS_TEST_RESULT'), 'SNIPPETS_TEST_RESULT unset')
local plugin_dir = assert(os.getenv('SNIPPETS_PLUGIN_DIR'), 'SNIPPETS_PLUGIN_DIR unset')
local step_timeout_ms = tonumber(os.getenv('SNIPPETS_TEST_STEP_MS') or '10000')

local result = { ok = false, stage = 'start', notifications = {} }
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
  .new(result, result_path, step_timeout_ms)
local finish, run = harness.finish, harness.run

vim.notify = function(message) table.insert(result.notifications, message) end
-- The user accepts whatever default a prompt offers.
result.prompts = {}
vim.ui.input = function(opts, on_confirm)
  table.insert(result.prompts, { prompt = opts.prompt, default = opts.default })
  on_confirm(opts.default)
end
vim.opt.runtimepath:prepend(plugin_dir)
vim.cmd.runtime('plugin/snippets_lsp.lua')
local snippets = require('snippets_lsp')
snippets.setup({ cmd = { bin, 'serve' }, root_markers = { '.snippets-root' }, settings = { libraries = { library } } })

local client ---@type vim.lsp.Client
local note ---@type integer the buffer questions are asked from
local question = 'remind the café that owes me for the invoice'
local slip = 'a footer for my outgoing invoices'

local function ask_sync(text)
  local responses = vim.lsp.buf_request_sync(note, 'snippets/ask', { question = text }, step_timeout_ms)
  local response = responses and responses[client.id]
  return response and response.result
end

local function lines_of_window()
  local state = snippets.window
  if state and vim.api.nvim_win_is_valid(state.win) then
    return vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)
  end
end

run({
  { 'open buffer', function()
    vim.cmd.edit(vim.fs.joinpath(workdir, 'note.md'))
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { '' })
    note = vim.api.nvim_get_current_buf()
    return true
  end },
  { 'library loaded', function()
    client = snippets.client(note)
    if not (client and client.initialized) then return false end
    local answer = ask_sync('chase an unpaid invoice')
    return answer and answer.status == 'answered'
  end },
  { 'before learning', function()
    result.before = ask_sync(question).status
    return true
  end },
  { 'ask', function()
    vim.cmd('SnippetsAsk ' .. question)
    return true
  end },
  { 'choose the chase', function()
    local lines = lines_of_window()
    if not lines then return false end
    result.window = lines
    for number, line in ipairs(lines) do
      if line:find('Unpaid account chase', 1, true) then
        vim.api.nvim_win_set_cursor(snippets.window.win, { number, 0 })
        vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'mt', false)
        return true
      end
    end
    error('the chase is not among the snippets it looked at')
  end },
  { 'learned', function()
    if snippets.last_learned then
      result.learned = snippets.last_learned
      vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'nt', false)
      return true
    end
  end },
  { 'after learning', function()
    local answer = ask_sync('a café owes me')
    result.after = { status = answer.status, answer = answer.answer }
    return true
  end },
  -- A slip: RET on the wrong line of an answer, then :SnippetsForgetLast, never a shell.
  { 'ask again', function()
    if vim.api.nvim_get_mode().mode ~= 'n' then return false end
    result.slip_before = vim.tbl_map(function(c) return c.title end, ask_sync(slip).citations)
    vim.cmd('SnippetsAsk ' .. slip)
    return true
  end },
  { 'choose the wrong line', function()
    local lines = lines_of_window()
    if not lines then return false end
    for number, line in ipairs(lines) do
      if line:find('Unpaid account chase', 1, true) then
        snippets.last_learned = nil
        vim.api.nvim_win_set_cursor(snippets.window.win, { number, 0 })
        vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'mt', false)
        return true
      end
    end
    error('the chase is not among the snippets it looked at for ' .. slip)
  end },
  { 'told what it learned', function()
    if not (snippets.last_learned and snippets.last_learned.result) then return false end
    vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'nt', false)
    result.slip_learned = snippets.last_learned.result.learned
    result.slip_notification = result.notifications[#result.notifications]
    result.slip_taught = vim.tbl_map(function(c) return c.title end, ask_sync(slip).citations)
    return true
  end },
  { 'forget the last lesson', function()
    if vim.api.nvim_get_mode().mode ~= 'n' then return false end
    vim.cmd('SnippetsForgetLast')
    return true
  end },
  { 'forgotten', function()
    if not snippets.last_forgotten then return false end
    result.forgotten = snippets.last_forgotten
    result.forget_notification = result.notifications[#result.notifications]
    result.slip_after = vim.tbl_map(function(c) return c.title end, ask_sync(slip).citations)
    return true
  end },
  { 'declined ask', function()
    vim.cmd('SnippetsAsk how do I bake sourdough bread')
    return true
  end },
  { 'offer to save', function()
    local lines = lines_of_window()
    if not lines then return false end
    result.declined_window = lines
    vim.api.nvim_feedkeys('s', 'mt', false)
    return true
  end },
  { 'saved', function()
    if snippets.last_saved then
      result.saved = snippets.last_saved
      return true
    end
  end },
  { 'opened at its body', function()
    -- The saved snippet's body is empty: the server had Neovim open it there (window/showDocument).
    local name = vim.api.nvim_buf_get_name(0)
    if vim.fs.basename(name) ~= 'saved.code-snippets' then return false end
    local cursor = vim.api.nvim_win_get_cursor(0)
    local line = vim.api.nvim_get_current_line()
    result.opened = { file = vim.fs.basename(name), at = line:sub(cursor[2] + 1, cursor[2] + 2) }
    return true
  end },
  { 'found next time', function()
    local answer = ask_sync('how do I bake sourdough bread')
    result.after_save = { status = answer.status, cited = vim.tbl_map(function(c) return c.title end, answer.citations) }
    return true
  end },
})

vim.defer_fn(function() finish(false, 'overall timeout at stage ' .. result.stage) end, 60000)
