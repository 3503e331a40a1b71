-- One start-up measurement inside headless Neovim, driven by Tests/bench/neovim_startup.py:
--   nvim --headless --clean -u Tests/bench/neovim_startup.lua
-- The run's settings come as JSON in $BENCH_CONFIG:
--   mode     'ours' (snippets-lsp through editors/neovim, the README's set-up) or 'mini' (mini.snippets' in-process
--            LSP server over friendly-snippets, as its own docs set it up)
--   file     a python file holding the trigger on line 1 (opened before the clock starts)
--   out      where the result (JSON) is written
--   timeout_ms  the run gives up (and writes an error) after this long
--   settle_ms  (ours) after the first completion, wait (at most this long) for the load announcement and a quiet
--            server (it embeds every snippet for ask after serving), then read its peak memory (VmHWM)
--   idle_ms  (ours, with settle_ms) then measure the server's CPU time over this long, Neovim idle
-- Every run of ours reads the server's VmHWM just before Neovim quits (and stops it).
-- ours: bin, plugin (editors/neovim), libraries; mini: mini (a mini.nvim folder), rtp (folders holding snippets/).
-- The clock starts just before the plugin is required and set up; `start_ms` is from the first vim.lsp.start call
-- (which spawns the server), `setup_ms` the part before it.
local cfg = vim.json.decode(os.getenv('BENCH_CONFIG'))
local hrtime = vim.uv.hrtime
local result = { mode = cfg.mode }
local finished = false
local server_pid = nil

local function write_result()
  local file = assert(io.open(cfg.out, 'w'))
  file:write(vim.json.encode(result))
  file:close()
end

local vm_hwm_kib

local function finish()
  if finished then
    return
  end
  finished = true
  if server_pid then
    result.vm_hwm_kib = vm_hwm_kib(server_pid) or result.vm_hwm_kib
  end
  write_result()
  vim.cmd('qall!')
end

local function fail(message)
  result.error = message
  finish()
end

vim.defer_fn(function()
  fail('timed out after ' .. cfg.timeout_ms .. ' ms')
end, cfg.timeout_ms)

local function read_file(path)
  local file = io.open(path, 'r')
  if not file then
    return nil
  end
  local text = file:read('*a')
  file:close()
  return text
end

-- utime + stime of `pid`, in clock ticks (fields 14 and 15 of /proc/PID/stat, after the command's closing paren).
local function cpu_ticks(pid)
  local stat = read_file('/proc/' .. pid .. '/stat')
  if not stat then
    return nil
  end
  local fields = vim.split(stat:match('%) (.*)$'), ' ', { plain = true })
  return tonumber(fields[12]) + tonumber(fields[13])
end

function vm_hwm_kib(pid)
  local status = read_file('/proc/' .. pid .. '/status') or ''
  return tonumber(status:match('VmHWM:%s+(%d+)'))
end

-- The server: Neovim's child running the binary.
local function find_server()
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local exe = vim.uv.fs_readlink('/proc/' .. pid .. '/exe')
    if exe and vim.uv.fs_realpath(exe) == vim.uv.fs_realpath(cfg.bin) then
      return pid
    end
  end
  return nil
end

local t0, t_start, t_loaded = nil, nil, nil
local function ms(t)
  return (t - t0) / 1e6
end

-- The first vim.lsp.start call is where the client starts the server.
local lsp_start = vim.lsp.start
vim.lsp.start = function(...)
  t_start = t_start or hrtime()
  return lsp_start(...)
end

-- The server announces a finished load ("loaded N snippets from M files") as a log message.
local log_message = vim.lsp.handlers['window/logMessage']
vim.lsp.handlers['window/logMessage'] = function(err, params, ctx)
  if params and type(params.message) == 'string' and params.message:find('^loaded ') and not t_loaded then
    t_loaded = hrtime()
    result.loaded_ms = ms(t_loaded)
    result.load_message = params.message
  end
  return log_message(err, params, ctx)
end

local function items_of(reply)
  if type(reply) ~= 'table' then
    return {}
  end
  return reply.items or reply
end

-- After the first completion (ours): wait for the load announcement and a quiet server, read the peak memory,
-- then (idle_ms) the CPU the server uses while nothing happens.
local function settle_and_finish()
  server_pid = server_pid or find_server()
  if not (cfg.settle_ms and server_pid) then
    return finish()
  end
  local deadline = hrtime() + cfg.settle_ms * 1e6
  local last, quiet_polls = cpu_ticks(server_pid), 0
  local function poll()
    local now = cpu_ticks(server_pid)
    if now == nil then
      return fail('the server exited while loading')
    end
    -- Quiet: announced, and under 5 ticks (50 ms at 100 Hz) of CPU in each of the last two 500 ms polls.
    quiet_polls = (t_loaded and (now - last) < 5) and quiet_polls + 1 or 0
    last = now
    if quiet_polls < 2 and hrtime() < deadline then
      return vim.defer_fn(poll, 500)
    end
    result.settled_ms = ms(hrtime())
    result.quiet = quiet_polls >= 2
    result.settled_hwm_kib = vm_hwm_kib(server_pid)
    if not cfg.idle_ms then
      return finish()
    end
    local before, started = cpu_ticks(server_pid), hrtime()
    vim.defer_fn(function()
      local after, wall = cpu_ticks(server_pid), (hrtime() - started) / 1e9
      result.idle_cpu_s = (after - before) / 100 -- USER_HZ is 100 on Linux
      result.idle_wall_s = wall
      finish()
    end, cfg.idle_ms)
  end
  vim.defer_fn(poll, 500)
end

-- Sends textDocument/completion at the end of the trigger until a reply has items.
local function complete(client, bufnr)
  local line = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = 0, character = #line },
    context = { triggerKind = 1 },
  }
  result.requests = 0
  local function send()
    if finished then
      return
    end
    result.requests = result.requests + 1
    client:request('textDocument/completion', params, function(err, reply)
      if finished then
        return
      end
      local items = items_of(reply)
      if err or #items == 0 then
        -- Empty (library not read yet), or an error: ask again, as the next keystroke would.
        result.last_error = err and (err.message or tostring(err)) or nil
        return vim.defer_fn(send, 1)
      end
      local t_done = hrtime()
      result.first_completion_ms = ms(t_done)
      result.from_start_ms = (t_done - (t_start or t0)) / 1e6
      result.setup_ms = ((t_start or t0) - t0) / 1e6
      result.items = #items
      result.incomplete = type(reply) == 'table' and reply.isIncomplete or false
      result.first_label = items[1].label
      write_result()
      settle_and_finish()
    end, bufnr)
  end
  send()
end

local function on_attach(name, bufnr)
  vim.api.nvim_create_autocmd('LspAttach', {
    buffer = bufnr,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and client.name == name and not result.attached_ms then
        result.attached_ms = ms(hrtime())
        if cfg.mode == 'ours' then
          server_pid = find_server()
          result.server_pid = server_pid
          write_result() -- the driver kills this process should Neovim not stop it
        end
        complete(client, args.buf)
      end
    end,
  })
end

local function run()
  vim.cmd('filetype plugin indent on') -- as in a user's config (the default without --clean)
  vim.cmd.edit(vim.fn.fnameescape(cfg.file))
  local bufnr = vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].filetype ~= 'python' then
    return fail('the benchmark file is not a python buffer: ' .. vim.bo[bufnr].filetype)
  end
  -- Normal mode, cursor on the trigger's last character: mini.snippets matches the text up to and including it.
  vim.api.nvim_win_set_cursor(0, { 1, math.max(0, #vim.api.nvim_get_current_line() - 1) })
  if cfg.mode == 'ours' then
    on_attach('snippets_lsp', bufnr)
    vim.opt.rtp:append(cfg.plugin)
    vim.opt.completeopt = { 'menuone', 'noselect', 'popup' }
    t0 = hrtime()
    require('snippets_lsp').setup({ cmd = { cfg.bin, 'serve' }, settings = { libraries = cfg.libraries } })
  else
    on_attach('mini.snippets', bufnr)
    vim.opt.rtp:append(cfg.mini)
    for _, path in ipairs(cfg.rtp) do
      vim.opt.rtp:append(path)
    end
    t0 = hrtime()
    local snippets = require('mini.snippets')
    local gen_loader = snippets.gen_loader
    local loaders = { gen_loader.from_lang() }
    for _, path in ipairs(cfg.files or {}) do
      table.insert(loaders, gen_loader.from_file(path))
    end
    snippets.setup({ snippets = loaders })
    MiniSnippets.start_lsp_server()
  end
end

vim.api.nvim_create_autocmd('VimEnter', {
  once = true,
  callback = function()
    -- Scheduled: out of the autocommand, so opening the file fires FileType (autocommands do not nest).
    vim.schedule(function()
      local ok, err = pcall(run)
      if not ok then
        fail(tostring(err))
      end
    end)
  end,
})
