-- Headless Neovim (0.12) set up exactly as editors/neovim/README.md says (its Lua block, run as written; the test
-- only replaces the plugin path and points HOME at a directory whose ~/.config/snippets is the test library, with
-- snippets-lsp on PATH). Then, as a user: type a trigger one key at a time and see the menu pop up by itself, move
-- onto the entry and see the trigger (not filter words) in the buffer and a preview of the snippet beside the menu,
-- accept and see the snippet expanded; use a
-- scratch buffer without a filetype; open a broken library file and see its problem; run :checkhealth.
--
-- Environment: SNIPPETS_TEST_SETUP (the README block), SNIPPETS_TEST_WORKDIR, SNIPPETS_TEST_RESULT,
-- SNIPPETS_TEST_LIBRARY. Writes one JSON object to SNIPPETS_TEST_RESULT. Every wait is bounded.

local setup = assert(os.getenv('SNIPPETS_TEST_SETUP'), 'SNIPPETS_TEST_SETUP unset')
local workdir = assert(os.getenv('SNIPPETS_TEST_WORKDIR'), 'SNIPPETS_TEST_WORKDIR unset')
local library = assert(os.getenv('SNIPPETS_TEST_LIBRARY'), 'SNIPPETS_TEST_LIBRARY unset')
local result_path = assert(os.getenv('SNIPPETS_TEST_RESULT'), 'SNIPPETS_TEST_RESULT unset')
local step_timeout_ms = tonumber(os.getenv('SNIPPETS_TEST_STEP_MS') or '10000')

local result = { ok = false, stage = 'start', nvim_version = tostring(vim.version()) }
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
  .new(result, result_path, step_timeout_ms)
local finish, run = harness.finish, harness.run

vim.lsp.log.set_level('debug')
result.notifications = {}
local notify = vim.notify
vim.notify = function(message, level, opts)
  table.insert(result.notifications, message)
  return notify(message, level, opts)
end

dofile(setup)

local trigger = 'invfoot'
local typed = 0
local pause_until = 0
result.menus = {}

local function attached(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'snippets_lsp' })[1]
  return client and client.initialized and client
end

local function menu()
  local info = vim.fn.complete_info({ 'mode', 'items', 'selected', 'matches' })
  if info.mode ~= '' and #info.items > 0 then
    return info
  end
end

run({
  { 'open buffer', function()
    vim.cmd.edit(vim.fs.joinpath(workdir, 'note.md'))
    return true
  end },
  { 'attach', function()
    local client = attached(0)
    -- The trigger characters come by registration once the library is read.
    if client and client.server_capabilities.completionProvider then
      result.trigger_characters = (client.server_capabilities.completionProvider or {}).triggerCharacters
      result.server_version = (client.server_info or {}).version
      return true
    end
  end },
  { 'insert mode', function()
    vim.api.nvim_feedkeys('i', 'nt', false)
    return true
  end },
  { 'type the trigger one key at a time', function()
    if vim.api.nvim_get_mode().mode:sub(1, 1) ~= 'i' or vim.uv.now() < pause_until then
      return false
    end
    if typed > 0 then
      local info = menu()
      table.insert(result.menus, { typed = trigger:sub(1, typed), words = info and vim.tbl_map(function(i) return i.word end, info.items) })
    end
    if typed == #trigger then
      return true
    end
    typed = typed + 1
    vim.api.nvim_feedkeys(trigger:sub(typed, typed), 'nt', false)
    pause_until = vim.uv.now() + 150
    return false
  end },
  { 'menu popped up by itself', function()
    local info = menu()
    if info then
      result.menu_words = vim.tbl_map(function(i) return i.word end, info.items)
      -- What the menu shows once Neovim has filtered by what was typed (when this Neovim reports it).
      result.shown_words = info.matches and vim.tbl_map(function(i) return i.word end, info.matches)
      result.selected_before_moving = info.selected
      result.line_before_moving = vim.api.nvim_get_current_line()
      return true
    end
  end },
  { 'move onto the entry', function()
    vim.api.nvim_feedkeys(vim.keycode('<C-n>'), 'nt', false)
    return true
  end },
  { 'entry selected', function()
    local info = vim.fn.complete_info({ 'selected' })
    if info.selected >= 0 then
      result.line_while_selected = vim.api.nvim_get_current_line()
      return true
    end
  end },
  { 'preview of the selected entry', function()
    -- `popup` in completeopt: the selected item's info in a window beside the menu, filled from the item as sent.
    local info = vim.fn.complete_info({ 'selected', 'items', 'preview_winid', 'preview_bufnr' })
    result.selected_info = info.items[info.selected + 1] and info.items[info.selected + 1].info
    if info.preview_winid and info.preview_winid > 0 and vim.api.nvim_win_is_valid(info.preview_winid) then
      result.preview_lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(info.preview_winid), 0, -1, false)
      return true
    end
  end },
  { 'accept', function()
    vim.api.nvim_feedkeys(vim.keycode('<C-y>'), 'nt', false)
    return true
  end },
  { 'snippet expanded', function()
    local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    if vim.fn.complete_info({ 'mode' }).mode == '' and #lines >= 2 then
      result.lines = lines
      vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'nt', false)
      return true
    end
  end },
  { 'scratch buffer without a filetype', function()
    if vim.api.nvim_get_mode().mode ~= 'n' then
      return false
    end
    vim.cmd.enew()
    vim.bo.buftype = 'nofile'
    vim.cmd.doautocmd('BufEnter')
    return true
  end },
  { 'scratch buffer attached', function()
    if attached(0) then
      result.scratch_filetype = vim.bo.filetype
      result.scratch_attached = true
      return true
    end
  end },
  { 'open a broken library file', function()
    vim.cmd.edit(vim.fs.joinpath(library, 'broken.code-snippets'))
    return true
  end },
  { 'library file diagnostics', function()
    if not attached(0) then
      return false
    end
    result.library_filetype = vim.bo.filetype
    local diagnostics = vim.diagnostic.get(0)
    if #diagnostics > 0 then
      result.library_diagnostics = vim.tbl_map(function(d) return d.message end, diagnostics)
      return true
    end
  end },
  { 'checkhealth', function()
    vim.cmd('checkhealth snippets_lsp')
    result.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    return true
  end },
})

vim.defer_fn(function()
  finish(false, 'overall timeout at stage ' .. result.stage)
end, 80000)
