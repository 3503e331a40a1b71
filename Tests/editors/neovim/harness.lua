-- Shared by the headless Neovim test scripts: `finish` writes the observations and quits, `run` runs bounded steps
-- in order, `record_events` logs modes and keys, `enable_snippets` starts the server with built-in completion,
-- `completion_items` asks the server directly. Load with `dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'harness.lua'))`.

local M = {}

--- A harness that writes `result` (the table a script fills with observations) as JSON to `result_path`.
--- Each step may take at most `step_timeout_ms`.
function M.new(result, result_path, step_timeout_ms)
  local harness = {}

  -- Records the outcome, writes the result and quits Neovim.
  function harness.finish(ok, err)
    result.ok = ok
    result.error = err
    result.lsp_log = vim.lsp.log.get_filename()
    local file = assert(io.open(result_path, 'w'))
    file:write(vim.json.encode(result))
    file:close()
    vim.cmd('qall!')
  end

  -- The items `client` answers for a completion at the end of the current buffer, set to the one line `line`: none
  -- while the library is still being read, so a step asks again until what it wants is there.
  function harness.completion_items(client, line)
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { line })
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(0) },
      position = { line = 0, character = vim.str_utfindex(line, client.offset_encoding, #line) },
    }
    local responses = vim.lsp.buf_request_sync(0, 'textDocument/completion', params, step_timeout_ms)
    local response = responses and responses[client.id]
    return response and response.result and (response.result.items or response.result) or {}
  end

  -- Runs `steps` ({name, function} pairs) in order; each returns true when its work is done (it is polled every
  -- 20 ms until then, for at most step_timeout_ms). Any error or timeout ends the run with the stage reached.
  function harness.run(steps)
    local index, started, busy = 1, vim.uv.now(), false
    local timer = assert(vim.uv.new_timer())
    timer:start(0, 20, vim.schedule_wrap(function()
      -- A step that waits (buf_request_sync runs vim.wait) lets this timer fire again inside it: skip those ticks
      -- so no step runs twice or is skipped.
      if index > #steps or busy then
        return
      end
      local name, step = steps[index][1], steps[index][2]
      result.stage = name
      busy = true
      local ok, done = pcall(step)
      busy = false
      if not ok then
        timer:stop()
        harness.finish(false, name .. ': ' .. tostring(done))
      elseif done then
        index, started = index + 1, vim.uv.now()
        if index > #steps then
          timer:stop()
          harness.finish(true)
        end
      elseif vim.uv.now() - started > step_timeout_ms then
        timer:stop()
        harness.finish(false, ('%s: timed out after %d ms (mode %s, line %q)'):format(
          name, step_timeout_ms, vim.api.nvim_get_mode().mode, vim.api.nvim_get_current_line()))
      end
    end))
  end

  -- Records mode changes and keys in `result.events`, so a failure report shows what the editor actually did.
  function harness.record_events()
    result.events = {}
    vim.api.nvim_create_autocmd('ModeChanged', {
      callback = function()
        table.insert(result.events, 'mode ' .. vim.v.event.old_mode .. '->' .. vim.v.event.new_mode)
      end,
    })
    vim.on_key(function(key)
      table.insert(result.events, 'key ' .. vim.fn.keytrans(key))
    end)
  end

  -- Configures and enables the server `bin` over `library` for Markdown and text buffers, with Neovim's built-in
  -- completion turned on in each buffer it attaches to: as you type when `as_you_type` (with the README's
  -- `completeopt`), else only when a script asks for it.
  function harness.enable_snippets(bin, library, as_you_type)
    if as_you_type then
      vim.o.completeopt = 'menuone,noselect,popup'
    end
    vim.lsp.config('snippets', {
      cmd = { bin, 'serve' },
      filetypes = { 'markdown', 'text' },
      root_markers = { '.snippets-root' },
      init_options = { libraries = { library } },
    })
    vim.lsp.enable('snippets')

    vim.api.nvim_create_autocmd('LspAttach', {
      callback = function(args)
        local client = vim.lsp.get_client_by_id(args.data.client_id)
        if client and client.name == 'snippets' then
          vim.lsp.completion.enable(true, client.id, args.buf, { autotrigger = as_you_type or false })
        end
      end,
    })
  end

  return harness
end

return M
