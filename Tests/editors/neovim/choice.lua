-- Headless Neovim (0.12): a snippet with two choice fields is completed and accepted with <C-y>, then the user
-- tabs past both fields without picking anything (vim.snippet's <Tab> mapping). The line must read with each
-- choice's first option: vim.snippet itself would leave a choice empty.
--
-- Environment: SNIPPETS_LSP_BIN, SNIPPETS_TEST_LIBRARY, SNIPPETS_TEST_WORKDIR, SNIPPETS_TEST_RESULT.
-- Writes one JSON object to SNIPPETS_TEST_RESULT: {ok, stage, error?, ...observations}. Every wait is bounded.

local bin = assert(os.getenv('SNIPPETS_LSP_BIN'), 'SNIPPETS_LSP_BIN unset')
local library = assert(os.getenv('SNIPPETS_TEST_LIBRARY'), 'SNIPPETS_TEST_LIBRARY unset')
local workdir = assert(os.getenv('SNIPPETS_TEST_WORKDIR'), 'SNIPPETS_TEST_WORKDIR unset')
local result_path = assert(os.getenv('SNIPPETS_TEST_RESULT'), 'SNIPPETS_TEST_RESULT unset')
local step_timeout_ms = tonumber(os.getenv('SNIPPETS_TEST_STEP_MS') or '10000')

local result = { ok = false, stage = 'start', nvim_version = tostring(vim.version()) }

local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
  .new(result, result_path, step_timeout_ms)
local finish, run = harness.finish, harness.run

vim.lsp.log.set_level('debug')

harness.record_events()
harness.enable_snippets(bin, library)

local client ---@type vim.lsp.Client

run({
  { 'open buffer', function()
    vim.cmd.edit(vim.fs.joinpath(workdir, 'note.md'))
    return true
  end },
  { 'attach', function()
    client = vim.lsp.get_clients({ bufnr = 0, name = 'snippets' })[1]
    return client and client.initialized
  end },
  { 'loaded', function()
    -- The library loads after `initialize` is answered: ask until the snippet is found.
    for _, item in ipairs(harness.completion_items(client, 'ooo')) do
      if item.label == 'ooo' then
        result.sent = item.textEdit and item.textEdit.newText
        return true
      end
    end
  end },
  { 'type trigger', function()
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { '' })
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.api.nvim_feedkeys(vim.keycode('Aooo'), 'nt', false)
    return true
  end },
  { 'typed', function()
    return vim.api.nvim_get_mode().mode == 'i' and vim.api.nvim_get_current_line() == 'ooo'
  end },
  { 'request completion', function()
    vim.lsp.completion.get()
    return true
  end },
  { 'completion offered', function()
    local info = vim.fn.complete_info({ 'mode', 'items' })
    return info.mode ~= '' and #info.items > 0
  end },
  { 'accept', function()
    local selected = vim.fn.complete_info({ 'selected' }).selected
    vim.api.nvim_feedkeys(vim.keycode(selected == -1 and '<C-n><C-y>' or '<C-y>'), 'nt', false)
    return true
  end },
  { 'snippet expanded', function()
    if vim.fn.complete_info({ 'mode' }).mode == '' and vim.snippet.active() then
      result.expanded = vim.api.nvim_get_current_line()
      return true
    end
  end },
  { 'tab past the first choice', function()
    -- vim.snippet's own <Tab> mapping (insert and select mode) jumps to the next field.
    vim.api.nvim_feedkeys(vim.keycode('<Tab>'), 'mt', false)
    return true
  end },
  { 'at the second field', function()
    -- Leave time for a choice menu vim.snippet might open (it defers it 100 ms) before going on.
    vim.wait(200)
    result.after_first_tab = vim.api.nvim_get_current_line()
    return true
  end },
  { 'tab past the second choice', function()
    vim.api.nvim_feedkeys(vim.keycode('<Tab>'), 'mt', false)
    return true
  end },
  { 'leave', function()
    vim.wait(200)
    vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'nt', false)
    return true
  end },
  { 'normal mode', function()
    if vim.api.nvim_get_mode().mode == 'n' then
      result.lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
      return true
    end
  end },
})

-- Backstop: whatever happens, end within a minute.
vim.defer_fn(function()
  finish(false, 'overall timeout at stage ' .. result.stage)
end, 60000)
