-- Headless Neovim (0.12) driving snippets-lsp as a user would: the client is configured with vim.lsp.config and
-- started by vim.lsp.enable, a trigger is typed in insert mode after non-ASCII text, completion is requested
-- through vim.lsp.completion and accepted with <C-y>, which applies the textEdit and expands the snippet.
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
local prefix = 'привет 😀 你好 '
local direct ---@type table

run({
  { 'open buffer', function()
    vim.cmd.edit(vim.fs.joinpath(workdir, 'note.md'))
    return true
  end },
  { 'attach', function()
    client = vim.lsp.get_clients({ bufnr = 0, name = 'snippets' })[1]
    if client and client.initialized then
      result.offset_encoding = client.offset_encoding
      return true
    end
  end },
  { 'direct request', function()
    -- The buffer holds the typed trigger after non-ASCII text; ask as the completion module would. The server
    -- loads the library after answering `initialize`, so an early request may find nothing: retry until found.
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { prefix .. 'invfoot' })
    local line = vim.api.nvim_get_current_line()
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(0) },
      position = { line = 0, character = vim.str_utfindex(line, client.offset_encoding, #line) },
    }
    local responses = vim.lsp.buf_request_sync(0, 'textDocument/completion', params, step_timeout_ms)
    local response = responses and responses[client.id]
    if not response then
      error('no completion response')
    end
    if response.err then
      error('completion failed: ' .. vim.inspect(response.err))
    end
    local items = response.result and (response.result.items or response.result) or {}
    result.direct_labels = vim.tbl_map(function(i) return i.label end, items)
    for _, item in ipairs(items) do
      if item.label == 'invfoot' then
        direct = item
      end
    end
    if not direct then
      return false
    end
    result.direct_range = direct.textEdit and direct.textEdit.range
    result.direct_expected_start = vim.str_utfindex(line, client.offset_encoding, #prefix)
    result.direct_expected_end = params.position.character
    result.direct_insert_text_format = direct.insertTextFormat
    return true
  end },
  { 'type trigger', function()
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { prefix })
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.api.nvim_feedkeys(vim.keycode('Ainvfoot'), 'nt', false)
    return true
  end },
  { 'typed', function()
    return vim.api.nvim_get_mode().mode == 'i' and vim.api.nvim_get_current_line() == prefix .. 'invfoot'
  end },
  { 'request completion', function()
    vim.lsp.completion.get()
    return true
  end },
  { 'completion offered', function()
    -- Without a UI the popup menu is never drawn (pumvisible() stays 0), but insert completion is active.
    local info = vim.fn.complete_info({ 'mode', 'items', 'selected' })
    if info.mode ~= '' and #info.items > 0 then
      result.menu_words = vim.tbl_map(function(i) return i.word end, info.items)
      return true
    end
  end },
  { 'accept', function()
    -- Select the first entry (if the menu did not already) and accept it: CompleteDone applies the item.
    local selected = vim.fn.complete_info({ 'selected' }).selected
    vim.api.nvim_feedkeys(vim.keycode(selected == -1 and '<C-n><C-y>' or '<C-y>'), 'nt', false)
    return true
  end },
  { 'snippet expanded', function()
    local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    return vim.fn.complete_info({ 'mode' }).mode == '' and #lines >= 2
  end },
  { 'leave insert mode', function()
    result.snippet_active = vim.snippet.active()
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
