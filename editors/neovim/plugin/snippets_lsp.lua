-- Commands of snippets-lsp; the server is configured by require('snippets_lsp').setup{}.
if vim.g.loaded_snippets_lsp then
  return
end
vim.g.loaded_snippets_lsp = true

vim.api.nvim_create_user_command('SnippetsAsk', function(args)
  require('snippets_lsp').ask(args.args)
end, { nargs = '*', desc = 'Ask your snippet library a question' })

vim.api.nvim_create_user_command('SnippetsAskCancel', function()
  require('snippets_lsp').cancel()
end, { desc = 'Cancel the snippets ask in flight' })

vim.api.nvim_create_user_command('SnippetsForgetLast', function()
  require('snippets_lsp').forget_last()
end, { desc = 'Take back what the last snippet inserted from an answer taught the server' })

vim.api.nvim_create_user_command('SnippetsSave', function(args)
  -- From visual mode the range is the selection ('<,'>); otherwise whole lines.
  require('snippets_lsp').save({ line1 = args.line1, line2 = args.line2, use_selection = args.range > 0 and vim.fn.visualmode() == 'v' })
end, { range = true, desc = 'Save the selection as a snippet' })
