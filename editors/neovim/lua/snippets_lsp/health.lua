-- :checkhealth snippets_lsp: the server program, its version, the running client, and `snippets-lsp doctor`
-- (library paths and where each came from, counts, problems, the model, the settings in effect).
local M = {}

local function doctor_command(plugin)
  local cmd = plugin.config.cmd
  local command = { cmd[1], 'doctor', '--json' }
  -- The --library and --model-* options the server is started with.
  for index = 2, #cmd do
    if cmd[index] ~= 'serve' then
      table.insert(command, cmd[index])
    end
  end
  table.insert(command, '--settings')
  table.insert(command, vim.json.encode({ snippets = plugin.config.settings }))
  return command
end

function M.check()
  local plugin = require('snippets_lsp')
  vim.health.start('snippets-lsp: server program')
  if vim.lsp.config[plugin.name] == nil then
    vim.health.error('not set up', { 'call require("snippets_lsp").setup({...}) in your config' })
  end
  local problem = plugin.start_problem()
  if problem then
    vim.health.error(problem)
    return
  end
  local program = plugin.config.cmd[1]
  vim.health.ok(('%s is %s'):format(program, vim.fn.exepath(program)))
  local version = vim.system({ program, '--version' }, { text = true }):wait(5000)
  if version.code == 0 then
    vim.health.ok('version: ' .. vim.trim(version.stdout))
  else
    vim.health.error(('`%s --version` failed (%s): %s'):format(program, tostring(version.code), vim.trim(version.stderr or '')))
  end
  local clients = vim.lsp.get_clients({ name = plugin.name })
  if #clients == 0 then
    vim.health.warn('no snippets-lsp client is running (open a buffer; :LspLog shows why a start failed)')
  end
  for _, client in ipairs(clients) do
    local info = client.server_info or {}
    vim.health.ok(('client %d running: %s %s, attached to %d buffers, position encoding %s'):format(
      client.id, info.name or '?', info.version or '?', vim.tbl_count(client.attached_buffers), client.offset_encoding))
    local provider = client.server_capabilities.completionProvider or {}
    vim.health.info('trigger characters: ' .. table.concat(provider.triggerCharacters or {}, ' '))
  end
  -- What the plugin showed by itself (its window closes after a while): said again here.
  for _, message in ipairs(plugin.messages) do
    vim.health.info('message: ' .. message)
  end

  vim.health.start('snippets-lsp: doctor')
  local run = vim.system(doctor_command(plugin), { text = true }):wait(15000)
  local ok, report = pcall(vim.json.decode, run.stdout or '')
  if not ok or type(report) ~= 'table' then
    vim.health.error(('`snippets-lsp doctor` failed (%s): %s'):format(tostring(run.code), vim.trim(run.stderr or '')))
    return
  end
  local library = report.library
  vim.health.info('library ' .. library.source)
  for _, path in ipairs(library.paths) do
    if path.kind == 'directory' or path.kind == 'file' then
      vim.health.ok(('%s: %d snippets in %d files'):format(path.path, path.snippets, path.files))
    else
      vim.health.error(('%s: %s'):format(path.path, path.kind == 'missing' and 'does not exist' or 'cannot be used'))
    end
  end
  vim.health.info(('%d snippets in %d files, %d errors, %d warnings'):format(
    library.snippets, library.files, library.errors, library.warnings))
  local model = report.model
  if model.url then
    local say = model.reachable and vim.health.ok or vim.health.warn
    say(('model %s: %s'):format(model.url, model.detail))
  else
    vim.health.info(model.detail)
  end
  local settings = report.settings
  vim.health.info(('settings: maxCompletionItems %d, askMarker %s, saveTo %s, resolveVariables %s'):format(
    settings.maxCompletionItems, settings.askMarker, settings.saveTo, settings.resolveVariables))
  for _, line in ipairs(report.problems) do
    vim.health.error(line)
  end
  if #report.problems == 0 then
    vim.health.ok('doctor found no problems')
  end
end

return M
