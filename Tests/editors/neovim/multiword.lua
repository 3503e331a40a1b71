-- Headless Neovim (0.12), typing key by key with the menu popping up as you type: completing a trigger of several words ("if else", typed as "if e" after other text) and
-- a trigger offered inside a word ("sr" at the end of "xsr"), each in a menu that also holds items for the last word
-- alone, and accepting it. Neovim takes one start column per menu (its `adjust_start_col`): the items must still be
-- offered, and accepting one must replace exactly what its trigger covers.
--
-- Environment: SNIPPETS_LSP_BIN, SNIPPETS_TEST_LIBRARY, SNIPPETS_TEST_WORKDIR, SNIPPETS_TEST_RESULT.
-- Writes one JSON object to SNIPPETS_TEST_RESULT: {ok, stage, error?, ...observations}. Every wait is bounded.

local bin = assert(os.getenv('SNIPPETS_LSP_BIN'), 'SNIPPETS_LSP_BIN unset')
local library = assert(os.getenv('SNIPPETS_TEST_LIBRARY'), 'SNIPPETS_TEST_LIBRARY unset')
local workdir = assert(os.getenv('SNIPPETS_TEST_WORKDIR'), 'SNIPPETS_TEST_WORKDIR unset')
local result_path = assert(os.getenv('SNIPPETS_TEST_RESULT'), 'SNIPPETS_TEST_RESULT unset')
local step_timeout_ms = tonumber(os.getenv('SNIPPETS_TEST_STEP_MS') or '10000')

local result = { ok = false, stage = 'start', nvim_version = tostring(vim.version()), menus = {}, lines = {} }

local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
  .new(result, result_path, step_timeout_ms)
local finish, run = harness.finish, harness.run

vim.lsp.log.set_level('debug')
harness.record_events()
harness.enable_snippets(bin, library, true)

local client ---@type vim.lsp.Client

-- Steps that type `text` on a new line key by key (the menu pops up as you type, as the README sets Neovim up), wait
-- for the menu, move onto the entry whose abbreviation is `label` with CTRL-N as a person would, accept it with
-- CTRL-Y, and record the line once the snippet is expanded and insert mode is left.
local function complete(name, text, label)
  local wanted
  local typed, pause_until = 0, 0
  return {
    { name .. ': insert mode', function()
      vim.api.nvim_buf_set_lines(0, 0, -1, false, { '' })
      vim.api.nvim_win_set_cursor(0, { 1, 0 })
      vim.api.nvim_feedkeys('A', 'nt', false)
      return true
    end },
    { name .. ': type key by key', function()
      if vim.api.nvim_get_mode().mode:sub(1, 1) ~= 'i' or vim.uv.now() < pause_until then
        return false
      end
      if typed == #text then
        return vim.api.nvim_get_current_line() == text
      end
      typed = typed + 1
      vim.api.nvim_feedkeys(text:sub(typed, typed), 'nt', false)
      pause_until = vim.uv.now() + 150
      return false
    end },
    { name .. ': menu', function()
      local info = vim.fn.complete_info({ 'mode', 'items' })
      if info.mode == '' or #info.items == 0 then
        return false
      end
      result.menus[name] = vim.tbl_map(function(i) return i.abbr ~= '' and i.abbr or i.word end, info.items)
      for index, item in ipairs(info.items) do
        if (item.abbr ~= '' and item.abbr or item.word) == label then
          wanted = index - 1
        end
      end
      -- The menu of the last key typed may still be on its way.
      return wanted ~= nil
    end },
    { name .. ': move onto it', function()
      -- Moving onto the entry shows what Neovim inserts for it while selected.
      local selected = vim.fn.complete_info({ 'selected' }).selected
      if selected == wanted then
        result.lines[name .. ' selected'] = vim.api.nvim_get_current_line()
        return true
      end
      if vim.uv.now() >= pause_until then
        vim.api.nvim_feedkeys(vim.keycode('<C-n>'), 'nt', false)
        pause_until = vim.uv.now() + 150
      end
      return false
    end },
    { name .. ': accept', function()
      vim.api.nvim_feedkeys(vim.keycode('<C-y>'), 'nt', false)
      return true
    end },
    { name .. ': expanded', function()
      if vim.fn.complete_info({ 'mode' }).mode == '' then
        vim.wait(100)
        result.lines[name] = vim.api.nvim_get_current_line()
        vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'nt', false)
        return true
      end
    end },
    { name .. ': left insert mode', function()
      if vim.api.nvim_get_mode().mode == 'n' then
        if vim.snippet.active() then
          vim.snippet.stop()
        end
        return true
      end
    end },
  }
end

local steps = {
  { 'open buffer', function()
    vim.cmd.edit(vim.fs.joinpath(workdir, 'note.txt'))
    return true
  end },
  { 'attach', function()
    client = vim.lsp.get_clients({ bufnr = 0, name = 'snippets' })[1]
    return client and client.initialized
  end },
  { 'loaded', function()
    -- The library loads after `initialize` is answered: ask until the snippet is found.
    return #harness.completion_items(client, 'els') > 0
  end },
}
vim.list_extend(steps, complete('several words', 'x if e', 'if else'))
vim.list_extend(steps, complete('inside a word', 'y xsr', 'sr'))
table.insert(steps, { 'done', function()
  return true
end })
run(steps)

-- Backstop: whatever happens, end within a minute.
vim.defer_fn(function()
  finish(false, 'overall timeout at stage ' .. result.stage)
end, 60000)
