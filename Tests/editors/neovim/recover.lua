-- Headless Neovim (0.12) with the editors/neovim plugin, started with a library folder that does not exist yet.
-- The user creates it while Neovim runs (a good file and a broken one): completion must then pop up by itself as a
-- trigger is typed (Neovim keeps the trigger characters it was told at start), the broken file must be named in a
-- warning, and a later reload with the same broken file must not repeat it; a trigger with a character the
-- library did not have before pops up too (the plugin takes the server's completion registrations).
--
-- Environment: as ask.lua (SNIPPETS_TEST_LIBRARY does not exist at start). Writes one JSON object to
-- SNIPPETS_TEST_RESULT: {ok, stage, error?, ...observations}.

local bin = assert(os.getenv('SNIPPETS_LSP_BIN'), 'SNIPPETS_LSP_BIN unset')
local library = assert(os.getenv('SNIPPETS_TEST_LIBRARY'), 'SNIPPETS_TEST_LIBRARY unset')
local workdir = assert(os.getenv('SNIPPETS_TEST_WORKDIR'), 'SNIPPETS_TEST_WORKDIR unset')
local result_path = assert(os.getenv('SNIPPETS_TEST_RESULT'), 'SNIPPETS_TEST_RESULT unset')
local plugin_dir = assert(os.getenv('SNIPPETS_PLUGIN_DIR'), 'SNIPPETS_PLUGIN_DIR unset')
local step_timeout_ms = tonumber(os.getenv('SNIPPETS_TEST_STEP_MS') or '10000')

local result = { ok = false, stage = 'start', notifications = {}, menus = {} }
local harness = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))
  .new(result, result_path, step_timeout_ms)
local finish, run = harness.finish, harness.run

vim.lsp.log.set_level('debug')
vim.notify = function(message) table.insert(result.notifications, message) end
vim.opt.completeopt = { 'menuone', 'noselect', 'popup' }
vim.opt.runtimepath:prepend(plugin_dir)
vim.cmd.runtime('plugin/snippets_lsp.lua')
local snippets = require('snippets_lsp')
snippets.setup({ cmd = { bin, 'serve' }, root_markers = { '.snippets-root' }, settings = { libraries = { library } } })

local function write(path, text)
  local file = assert(io.open(path, 'w'))
  file:write(text)
  file:close()
end

local good = '{ "Invoice reminder": { "prefix": "invrem", "body": "Invoice ${1:42} is overdue." } }'
local good_again = '{ "Invoice reminder": { "prefix": "invrem", "body": "Invoice ${1:42} is overdue." },'
  .. ' "Invoice thanks": { "prefix": "invthx", "body": "Thanks for paying invoice ${1:42}." },'
  .. ' "Section sign": { "prefix": "§sig", "body": "Kind regards" } }'
local trigger = 'invrem'
local typed, pause_until = 0, 0

local function broken_warnings()
  return vim.tbl_filter(function(message) return message:find('broken.code-snippets', 1, true) ~= nil end,
    result.notifications)
end

local function menu()
  local info = vim.fn.complete_info({ 'mode', 'items' })
  if info.mode ~= '' and #info.items > 0 then
    return vim.tbl_map(function(i) return i.word end, info.items)
  end
end

local client ---@type vim.lsp.Client

run({
  { 'open buffer', function()
    vim.cmd.edit(vim.fs.joinpath(workdir, 'note.md'))
    return true
  end },
  { 'attach', function()
    client = snippets.client(0)
    if client and client.initialized and client.server_capabilities.completionProvider then
      result.trigger_characters = (client.server_capabilities.completionProvider or {}).triggerCharacters
      return true
    end
  end },
  { 'told the library is missing', function()
    for _, message in ipairs(result.notifications) do
      if message:find('does not exist', 1, true) then return true end
    end
  end },
  { 'create the library', function()
    vim.fn.mkdir(library, 'p')
    write(vim.fs.joinpath(library, 'office.code-snippets'), good)
    write(vim.fs.joinpath(library, 'broken.code-snippets'), '{ "Broken": { "prefix": "br", "body": "x" ')
    return true
  end },
  { 'the broken file is named', function()
    -- The server's periodic check finds the new folder and loads it; the warning follows the load.
    local warnings = broken_warnings()
    if #warnings > 0 then
      result.broken_warning = warnings[1]
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
      table.insert(result.menus, { typed = trigger:sub(1, typed), words = menu() })
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
    local words = menu()
    if words then
      result.menu_words = words
      vim.api.nvim_feedkeys(vim.keycode('<C-e><Esc>'), 'nt', false)
      return true
    end
  end },
  { 'edit the library again', function()
    if vim.api.nvim_get_mode().mode ~= 'n' then return false end
    write(vim.fs.joinpath(library, 'office.code-snippets'), good_again)
    vim.cmd.enew()
    vim.bo.buftype = 'nofile'
    vim.cmd.doautocmd('BufEnter')
    return true
  end },
  { 'reloaded', function()
    if not vim.lsp.buf_is_attached(0, client.id) then return false end
    for _, item in ipairs(harness.completion_items(client, 'invth')) do
      if item.label == 'invthx' then return true end
    end
  end },
  { 'told once', function()
    result.broken_warning_count = #broken_warnings()
    return true
  end },
  { 're-registered', function()
    -- "§" is in no trigger at start and not in the default set: it pops up only if the registration was taken.
    local characters = (client.server_capabilities.completionProvider or {}).triggerCharacters or {}
    if vim.tbl_contains(characters, '§') then
      result.trigger_characters_after = characters
      vim.api.nvim_buf_set_lines(0, 0, -1, false, { '' })
      vim.api.nvim_feedkeys('i§', 'nt', false)
      return true
    end
  end },
  { 'a new character pops the menu up', function()
    local words = menu()
    if words then
      result.section_menu = words
      vim.api.nvim_feedkeys(vim.keycode('<C-e><Esc>'), 'nt', false)
      return true
    end
  end },
})

vim.defer_fn(function() finish(false, 'overall timeout at stage ' .. result.stage) end, 80000)
