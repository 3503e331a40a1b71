-- snippets-lsp for Neovim 0.11+: completions from your snippet library, `:SnippetsAsk` to ask it a question, and
-- `:SnippetsSave` to add the selection to it. Client glue only: every answer comes from the server.
local M = {}

--- The client's name in vim.lsp.config.
M.name = 'snippets_lsp'

--- Defaults; `setup{}` merges its argument over these.
M.defaults = {
  -- How to start the server.
  cmd = { 'snippets-lsp', 'serve' },
  -- nil: every filetype.
  filetypes = nil,
  -- Files that mark a workspace root (its .vscode/*.code-snippets are project snippets).
  root_markers = { '.git', '.vscode' },
  -- Server settings (see docs/settings.md): libraries, maxCompletionItems, resolveVariables, askMarker, saveTo.
  settings = {},
  -- Keys in the answer window.
  keys = { insert = '<CR>', definition = 'gd', close = 'q', save = 's' },
  -- Cancels an ask in flight (normal mode, global); false for none.
  cancel_key = '<C-c>',
  -- Completion as you type with the built-in vim.lsp.completion (autotrigger on the server's trigger characters);
  -- false when a completion plugin (nvim-cmp, blink.cmp) asks the server instead.
  autocomplete = true,
  -- How long (ms) a message the plugin shows by itself (a broken library file, a missing library path, a setup
  -- problem) stays in its window at the top right. The window never takes a key: typing goes on. A notification
  -- plugin that replaces vim.notify (nvim-notify, snacks, fidget, ...) gets these messages instead.
  message_ms = 10000,
}

M.config = vim.deepcopy(M.defaults)

local namespace = vim.api.nvim_create_namespace('snippets_lsp')
M.namespace = namespace

-- The ask in flight ({client, id}) and the answer window's state.
local pending = nil
M.window = nil

vim.api.nvim_set_hl(0, 'SnippetsLspCitation', { default = true, link = 'Special' })
vim.api.nvim_set_hl(0, 'SnippetsLspCited', { default = true, link = 'DiagnosticOk' })
vim.api.nvim_set_hl(0, 'SnippetsLspReason', { default = true, link = 'WarningMsg' })
vim.api.nvim_set_hl(0, 'SnippetsLspHint', { default = true, link = 'Comment' })

--- Why the server cannot start, or nil: the command is not an executable (not on PATH).
function M.start_problem()
  local program = M.config.cmd and M.config.cmd[1]
  if type(program) ~= 'string' then
    return 'cmd must be a list such as { "snippets-lsp", "serve" }'
  end
  if vim.fn.executable(program) == 1 then
    return nil
  end
  return ('the server program %q is not on PATH or not executable: install it (see the snippets-lsp README), or '
    .. 'pass its full path: setup({ cmd = { "/path/to/snippets-lsp", "serve" } })'):format(program)
end

--- The messages the plugin showed by itself, oldest first (`:checkhealth snippets_lsp` lists them again).
M.messages = {}

-- The message window: { buf, win, lines, timer }, or nil.
local message_box = nil

--- Whether vim.notify is Neovim's own: it echoes, and a message longer than the command line then stops at "Press
--- ENTER", where the next keys typed are swallowed (a space, g, k, u, b) or taken as commands.
local function notify_echoes()
  local info = debug.getinfo(vim.notify, 'S')
  return info ~= nil and (info.source or ''):find('vim/_editor.lua', 1, true) ~= nil
end

--- Closes the message window.
function M.close_messages()
  local box = message_box
  message_box = nil
  if box and box.timer and not box.timer:is_closing() then
    box.timer:stop()
    box.timer:close()
  end
  if box and vim.api.nvim_win_is_valid(box.win) then
    vim.api.nvim_win_close(box.win, true)
  end
end

--- Adds `message` to the message window (opened at the top right, never focused) and closes it `message_ms` after
--- the last message.
local function show_in_window(message, level)
  local box = message_box
  if not (box and vim.api.nvim_win_is_valid(box.win)) then
    local buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].bufhidden = 'wipe'
    box = { buf = buf, lines = {} }
  else
    table.insert(box.lines, '')
  end
  vim.list_extend(box.lines, vim.split(message, '\n', { plain = true }))
  vim.api.nvim_buf_set_lines(box.buf, 0, -1, false, box.lines)
  local config = {
    relative = 'editor', anchor = 'NE', row = 0, col = vim.o.columns, zindex = 250,
    width = math.max(1, math.min(72, vim.o.columns - 2)), height = 1,
    style = 'minimal', border = 'rounded', focusable = false, title = ' snippets ', title_pos = 'left',
  }
  if box.win and vim.api.nvim_win_is_valid(box.win) then
    vim.api.nvim_win_set_config(box.win, config)
  else
    config.noautocmd = true
    box.win = vim.api.nvim_open_win(box.buf, false, config)
    vim.wo[box.win].wrap = true
    vim.wo[box.win].linebreak = true
  end
  local group = ({ [vim.log.levels.ERROR] = 'ErrorMsg', [vim.log.levels.WARN] = 'WarningMsg' })[level] or 'FloatBorder'
  vim.wo[box.win].winhighlight = 'FloatBorder:' .. group .. ',FloatTitle:' .. group
  local height = vim.api.nvim_win_text_height(box.win, {}).all
  vim.api.nvim_win_set_height(box.win, math.max(1, math.min(height, vim.o.lines - 4)))
  if box.timer and not box.timer:is_closing() then
    box.timer:stop()
    box.timer:close()
  end
  message_box = box
  box.timer = vim.defer_fn(function()
    if message_box == box then M.close_messages() end
  end, M.config.message_ms)
end

--- Shows a message the plugin gives by itself, without waiting for a key: the server's messages arrive at start,
--- while the user may already be typing. A vim.notify that a notification plugin replaced gets it; Neovim's own
--- would stop at "Press ENTER" for a message longer than the command line, so the plugin's window shows it instead.
function M.show_message(message, level)
  table.insert(M.messages, message)
  if not notify_echoes() then
    return vim.notify(message, level)
  end
  vim.schedule(function() show_in_window(message, level) end)
end

--- `window/showMessage`: the server's messages (a broken library file, a missing library path), shown without
--- waiting for a key (`show_message`).
function M.on_show_message(_, params)
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  M.show_message(params.message, levels[params.type] or vim.log.levels.INFO)
  return vim.NIL
end

--- Library files get a filetype, so they open with highlighting and attach (their problems show as diagnostics).
vim.filetype.add({ extension = { ['code-snippets'] = 'jsonc', snippets = 'snippets' } })

--- Configures and enables the server for every filetype (or `opts.filetypes`), and for buffers without one
--- (scratch buffers, extensionless files), which `vim.lsp.enable` alone never attaches to.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local problem = M.start_problem()
  if problem then
    M.show_message('snippets: ' .. problem, vim.log.levels.ERROR)
  end
  vim.lsp.config(M.name, {
    cmd = M.config.cmd,
    filetypes = M.config.filetypes,
    root_markers = M.config.root_markers,
    init_options = M.config.settings,
    settings = { snippets = M.config.settings },
    -- Neovim keeps the trigger characters it is told in `initialize` for the whole session, so a snippet added later
    -- with a new character would never pop up by itself: the plugin takes completion registrations instead (the
    -- server registers once the library is read, and again when a reload changes its triggers).
    capabilities = { textDocument = { completion = { dynamicRegistration = true } } },
    handlers = { ['client/registerCapability'] = M.on_register_capability, ['window/showMessage'] = M.on_show_message },
  })
  vim.lsp.enable(M.name)
  if M.config.filetypes == nil and not problem then
    local group = vim.api.nvim_create_augroup('snippets_lsp_no_filetype', { clear = true })
    -- Entering such a buffer joins a running client; typing in one starts a client when none runs yet (so the
    -- empty buffer Neovim starts with does not start a server of its own before a real file is opened).
    vim.api.nvim_create_autocmd('BufEnter', {
      group = group,
      callback = function(args) M.attach_without_filetype(args.buf, false) end,
    })
    vim.api.nvim_create_autocmd('InsertEnter', {
      group = group,
      callback = function(args) M.attach_without_filetype(args.buf, true) end,
    })
  end
  if M.config.autocomplete then
    vim.api.nvim_create_autocmd('LspAttach', {
      group = vim.api.nvim_create_augroup('snippets_lsp_autocomplete', { clear = true }),
      callback = function(args)
        local client = vim.lsp.get_client_by_id(args.data.client_id)
        if client and client.name == M.name then
          vim.lsp.completion.enable(true, client.id, args.buf, { autotrigger = true })
        end
      end,
    })
  end
  if M.config.cancel_key then
    vim.keymap.set('n', M.config.cancel_key, function()
      if not M.cancel() then
        vim.api.nvim_feedkeys(vim.keycode(M.config.cancel_key), 'n', false)
      end
    end, { desc = 'Cancel a snippets ask in flight' })
  end
end

--- `client/registerCapability`: a completion registration becomes the client's completion provider (its trigger
--- characters), and as-you-type completion is enabled again in every attached buffer so it triggers on them; the
--- rest (file watchers) goes to Neovim's own handler.
function M.on_register_capability(err, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  for _, registration in ipairs((params or {}).registrations or {}) do
    if client and registration.method == 'textDocument/completion' then
      client.server_capabilities.completionProvider = registration.registerOptions or {}
      if M.config.autocomplete then
        for bufnr in pairs(client.attached_buffers) do
          vim.lsp.completion.enable(false, client.id, bufnr)
          vim.lsp.completion.enable(true, client.id, bufnr, { autotrigger = true })
        end
      end
    end
  end
  return vim.lsp.handlers['client/registerCapability'](err, params, ctx)
end

--- Attaches `bufnr` when it has no filetype and is a normal or scratch buffer: to the running client, else (with
--- `start`) a new one. vim.lsp.enable starts clients on the FileType event, which such buffers never fire.
function M.attach_without_filetype(bufnr, start)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].filetype ~= '' then
    return
  end
  local buftype = vim.bo[bufnr].buftype
  if buftype ~= '' and buftype ~= 'nofile' then
    return
  end
  if #vim.lsp.get_clients({ bufnr = bufnr, name = M.name }) > 0 then
    return
  end
  local running = vim.lsp.get_clients({ name = M.name })[1]
  if running then
    vim.lsp.buf_attach_client(bufnr, running.id)
  elseif start then
    local config = vim.deepcopy(vim.lsp.config[M.name])
    config.name = M.name
    vim.lsp.start(config, { bufnr = bufnr })
  end
end

--- Why no client serves this buffer, for the user.
function M.not_running_reason()
  if vim.lsp.config[M.name] == nil then
    return 'the server is not set up: call require("snippets_lsp").setup({...}) in your config'
  end
  local problem = M.start_problem()
  if problem then
    return problem
  end
  return 'the server is not running for this buffer (see :checkhealth snippets_lsp and :LspLog)'
end

--- The snippets client for `bufnr` (else any running one).
function M.client(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr or 0, name = M.name })[1] or vim.lsp.get_clients({ name = M.name })[1]
end

local function notify(message, level)
  vim.notify('snippets: ' .. message, level or vim.log.levels.INFO)
end

--- Asks `question` (prompts when nil or empty) and shows the answer in a floating window.
function M.ask(question)
  if question == nil or question == '' then
    vim.ui.input({ prompt = 'Ask your snippets: ' }, function(input)
      if input and input ~= '' then
        M.ask(input)
      end
    end)
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return notify(M.not_running_reason(), vim.log.levels.ERROR)
  end
  M.cancel()
  local origin = {
    win = vim.api.nvim_get_current_win(),
    buf = bufnr,
    cursor = vim.api.nvim_win_get_cursor(0),
    position = vim.lsp.util.make_position_params(0, client.offset_encoding).position,
    question = question,
  }
  local params = { question = question, position = origin.position }
  if vim.lsp.buf_is_attached(bufnr, client.id) then
    params.textDocument = { uri = vim.uri_from_bufnr(bufnr) }
  else
    params.position = nil
  end
  local request = {}
  local ok, id = client:request('snippets/ask', params, function(err, result)
    if pending == request then
      pending = nil
    end
    if request.cancelled then
      return
    end
    if err then
      return notify('ask failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    M.show(result, client, origin)
  end, bufnr)
  if not ok then
    return notify('could not send the question (the server stopped?)', vim.log.levels.ERROR)
  end
  request.client, request.id = client, id
  pending = request
end

--- Cancels the ask in flight; returns whether there was one.
function M.cancel()
  local request = pending
  if not request then
    return false
  end
  pending = nil
  request.cancelled = true
  request.client:cancel_request(request.id)
  notify('ask cancelled')
  return true
end

--- Whether an ask is in flight.
function M.is_asking()
  return pending ~= nil
end

local function file_line(location)
  local path = vim.uri_to_fname(location.uri)
  return ('%s:%d'):format(vim.fn.fnamemodify(path, ':~:.'), location.range.start.line + 1)
end

--- The answer window's lines, highlights (0-based line, byte start, byte end, group) and the candidate on each
--- line. Pure, for tests: `encoding` is the client's offset encoding (answerRange counts its code units).
function M.render(result, encoding)
  local lines, highlights, items = {}, {}, {}
  local answer = result.answer or ''
  lines[1] = answer
  for _, citation in ipairs(result.citations or {}) do
    local start = vim.str_byteindex(answer, encoding, citation.answerRange.start, false)
    local finish = vim.str_byteindex(answer, encoding, citation.answerRange['end'], false)
    table.insert(highlights, { 0, start, finish, 'SnippetsLspCitation' })
  end
  if result.status ~= 'answered' and result.reason and result.reason.message ~= answer then
    table.insert(lines, result.reason.message)
    table.insert(highlights, { #lines - 1, 0, #result.reason.message, 'SnippetsLspReason' })
  end
  local cited = {}
  for _, citation in ipairs(result.citations or {}) do
    cited[citation.id] = true
  end
  if #(result.candidates or {}) > 0 then
    table.insert(lines, '')
    table.insert(lines, 'Snippets it looked at:')
    for _, candidate in ipairs(result.candidates) do
      local mark = cited[candidate.id] and '✓ ' or '  '
      local line = mark .. candidate.title .. '  ' .. file_line(candidate.location)
      table.insert(lines, line)
      items[#lines] = candidate
      if cited[candidate.id] then
        table.insert(highlights, { #lines - 1, 0, #mark, 'SnippetsLspCited' })
        table.insert(highlights, { #lines - 1, #mark, #mark + #candidate.title, 'SnippetsLspCitation' })
      end
    end
    local keys = M.config.keys
    local hint = ('%s insert · %s definition · %s close'):format(keys.insert, keys.definition, keys.close)
    table.insert(lines, '')
    table.insert(lines, hint)
    table.insert(highlights, { #lines - 1, 0, #hint, 'SnippetsLspHint' })
  end
  if result.status == 'noMatch' then
    -- A declined ask is a snippet not written yet.
    local offer = ('%s save a snippet for this question'):format(M.config.keys.save)
    table.insert(lines, offer)
    table.insert(highlights, { #lines - 1, 0, #offer, 'SnippetsLspHint' })
  end
  return lines, highlights, items
end

--- Closes the answer window.
function M.close()
  local state = M.window
  M.window = nil
  if state and vim.api.nvim_win_is_valid(state.win) then
    vim.api.nvim_win_close(state.win, true)
  end
end

--- Shows an ask result in a floating window at the cursor.
function M.show(result, client, origin)
  M.close()
  local lines, highlights, items = M.render(result, client.offset_encoding)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  for _, h in ipairs(highlights) do
    vim.api.nvim_buf_set_extmark(buf, namespace, h[1], h[2], { end_col = h[3], hl_group = h[4] })
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'snippets_lsp_answer'
  local width = 20
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width, math.max(20, vim.o.columns - 4))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'cursor', row = 1, col = 0, width = width, height = math.min(#lines, math.max(1, vim.o.lines - 4)),
    style = 'minimal', border = 'rounded', title = ' Snippets ', title_pos = 'left',
  })
  vim.wo[win].wrap = true
  M.window = { win = win, buf = buf, items = items, client = client, origin = origin, result = result }
  -- Start on the first cited snippet, else the first one looked at.
  local cited = {}
  for _, citation in ipairs(result.citations or {}) do
    cited[citation.id] = true
  end
  local lines_with_items = vim.tbl_keys(items)
  table.sort(lines_with_items)
  local first = lines_with_items[1]
  for _, line in ipairs(lines_with_items) do
    if cited[items[line].id] then
      first = line
      break
    end
  end
  if first then
    vim.api.nvim_win_set_cursor(win, { first, 0 })
  end
  local keys = M.config.keys
  local map = function(lhs, fn) vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true }) end
  map(keys.insert, M.insert_current)
  map(keys.definition, M.definition_current)
  map(keys.close, M.close)
  map('<Esc>', M.close)
  if result.status == 'noMatch' then
    map(keys.save, M.save_question)
  end
end

local function current_candidate()
  local state = M.window
  if not state or not vim.api.nvim_win_is_valid(state.win) then
    return nil
  end
  local line = vim.api.nvim_win_get_cursor(state.win)[1]
  return state.items[line], state
end

--- Inserts the snippet under the cursor line of the answer window at the cursor the question was asked from.
function M.insert_current()
  local candidate, state = current_candidate()
  if not candidate then
    return notify('no snippet on this line')
  end
  local origin = state.origin
  local params = { id = candidate.id, position = origin.position }
  if vim.api.nvim_buf_is_valid(origin.buf) and vim.lsp.buf_is_attached(origin.buf, state.client.id) then
    params.textDocument = { uri = vim.uri_from_bufnr(origin.buf) }
  end
  state.client:request('snippets/snippetText', params, function(err, result)
    if err then
      return notify('could not get the snippet: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    M.close()
    if not (vim.api.nvim_win_is_valid(origin.win) and vim.api.nvim_buf_is_valid(origin.buf)) then
      return notify('the window the question came from is gone', vim.log.levels.WARN)
    end
    vim.api.nvim_set_current_win(origin.win)
    vim.api.nvim_win_set_cursor(origin.win, origin.cursor)
    vim.snippet.expand(result.snippet)
    M.learn(state.client, origin.question, candidate.id, origin.buf)
  end, origin.buf)
end

--- The message for what one choice taught the server (a `snippets.learn` result), with the way to take it back;
--- nil when nothing was written.
function M.learned_message(result)
  if not (result and result.path) then
    return nil
  end
  local what = #(result.learned or {}) > 0 and table.concat(result.learned, ', ') or 'this question'
  return ('learned from your choice: %s → %s; undo: :SnippetsForgetLast'):format(what, result.title)
end

--- Tells the server that `id` was the snippet chosen for `question` (`snippets.learn`), so that its words count
--- for it next time, and says what it learned (`:SnippetsForgetLast` takes it back). A refusal (learning switched
--- off, a read-only library) only reaches the log.
function M.learn(client, question, id, bufnr)
  if not question or question == '' then
    return
  end
  client:request('workspace/executeCommand', { command = 'snippets.learn', arguments = { { question = question, id = id } } },
    function(err, result)
      if err then
        vim.lsp.log.info('snippets.learn: ' .. (err.message or vim.inspect(err)))
      end
      M.last_learned = { question = question, id = id, error = err and err.message or nil, result = result, client_id = client.id }
      local message = not err and M.learned_message(result)
      if message then
        notify(message)
      end
    end, bufnr)
end

--- Takes back what the last insert from an answer taught the server (`snippets.forget` with the words its
--- `snippets.learn` reported): a wrong line chosen in the answer window is undone without a shell.
function M.forget_last()
  local lesson = M.last_learned
  if not (lesson and lesson.result and lesson.result.path) then
    return notify('no choice of yours taught the server anything in this session')
  end
  local client = vim.lsp.get_client_by_id(lesson.client_id)
  if not client or client:is_stopped() then
    return notify('the server that learned it has stopped; use snippets-lsp learn --forget', vim.log.levels.WARN)
  end
  local argument = { id = lesson.id, question = lesson.question, words = lesson.result.learned }
  client:request('workspace/executeCommand', { command = 'snippets.forget', arguments = { argument } },
    function(err, result)
      M.last_forgotten = { error = err and err.message or nil, result = result }
      if err then
        return notify(err.message, vim.log.levels.ERROR)
      end
      M.last_learned = nil
      if result.forgotten > 0 or result.forgotQuestion then
        notify(('forgot what "%s" learned from your choice'):format(result.title))
      else
        notify(('"%s" had nothing left to forget'):format(result.title))
      end
    end)
end

--- "Save a snippet for this question" (a declined ask): an empty snippet at the library's save file, named after
--- the question and described by it, through the server's save path, so the next ask finds it. Asks for the
--- trigger first (vim.ui.input), with the one the server derives from the question's distinctive words as the
--- default; Escape saves nothing.
function M.save_question()
  local state = M.window
  if not state then
    return
  end
  M.close()
  local origin = state.origin
  if not (vim.api.nvim_buf_is_valid(origin.buf) and vim.lsp.buf_is_attached(origin.buf, state.client.id)) then
    return notify('the buffer the question came from is not attached', vim.log.levels.WARN)
  end
  local argument = {
    textDocument = { uri = vim.uri_from_bufnr(origin.buf) },
    range = { start = origin.position, ['end'] = origin.position },
    description = origin.question,
  }
  local function save(trigger)
    local given = vim.deepcopy(argument)
    given.trigger = trigger
    state.client:request('workspace/executeCommand', { command = 'snippets.saveSelection', arguments = { given } },
      function(err, result)
        M.last_saved = { error = err and err.message or nil, result = result }
      end, origin.buf)
  end
  -- The server derives the default (it knows which words are rare in the library); nothing is written yet.
  local preview = vim.tbl_extend('force', argument, { preview = true })
  state.client:request('workspace/executeCommand', { command = 'snippets.saveSelection', arguments = { preview } },
    function(err, result)
      if err then
        M.last_saved = { error = err.message }
        return notify(err.message, vim.log.levels.ERROR)
      end
      vim.ui.input({ prompt = 'Trigger for this question: ', default = result.trigger }, function(trigger)
        if trigger == nil then
          return
        end
        trigger = vim.trim(trigger)
        -- The default unchanged (or emptied): let the server derive it again, stepping around any new clash.
        save((trigger ~= '' and trigger ~= result.trigger) and trigger or nil)
      end)
    end, origin.buf)
end

--- Jumps to the definition (the library file's entry) of the snippet under the cursor line.
function M.definition_current()
  local candidate, state = current_candidate()
  if not candidate then
    return notify('no snippet on this line')
  end
  M.close()
  if vim.api.nvim_win_is_valid(state.origin.win) then
    vim.api.nvim_set_current_win(state.origin.win)
  end
  vim.lsp.util.show_document(candidate.location, state.client.offset_encoding, { focus = true })
end

--- Saves the lines `line1`..`line2`, or the last visual selection when `use_selection`, as a snippet. Asks for
--- a trigger and a title (empty: derived from the text) unless `opts` gives them.
function M.save(opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return notify(M.not_running_reason(), vim.log.levels.ERROR)
  end
  local range
  if opts.use_selection then
    range = vim.lsp.util.make_given_range_params(nil, nil, bufnr, client.offset_encoding).range
  else
    local last = vim.api.nvim_buf_get_lines(bufnr, opts.line2 - 1, opts.line2, false)[1] or ''
    range = {
      start = { line = opts.line1 - 1, character = 0 },
      ['end'] = { line = opts.line2 - 1, character = vim.str_utfindex(last, client.offset_encoding) },
    }
  end
  local function send(trigger, title)
    local argument = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, range = range }
    if trigger and trigger ~= '' then argument.trigger = trigger end
    if title and title ~= '' then argument.title = title end
    client:request('workspace/executeCommand', { command = 'snippets.saveSelection', arguments = { argument } },
      function(err, result)
        if opts.on_done then opts.on_done(err, result) end
      end, bufnr)
  end
  if opts.trigger or opts.title then
    return send(opts.trigger, opts.title)
  end
  vim.ui.input({ prompt = 'Trigger (empty: derived): ' }, function(trigger)
    if trigger == nil then return end
    vim.ui.input({ prompt = 'Title (empty: first line): ' }, function(title)
      if title == nil then return end
      send(trigger, title)
    end)
  end)
end

return M
