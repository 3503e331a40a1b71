;;; safety.el --- Emacs in batch mode with eglot or lsp-mode and yasnippet, as Debian 12 ships them: accepting a
;;; completion whose body holds Emacs Lisp (backquoted, and $(...) in a field) must run none of it.  -*- lexical-binding: t -*-
;;
;; Environment: SNIPPETS_TEST_CLIENT (eglot or lsp-mode), SNIPPETS_TEST_FILE (a .txt note), SNIPPETS_TEST_RESULT
;; (where the JSON observations go), SNIPPETS_TEST_SERVER (the server binary), SNIPPETS_TEST_LIBRARY.

(require 'json)
(require 'cl-lib)
(require 'yasnippet)

(defvar snippets-test-client (getenv "SNIPPETS_TEST_CLIENT"))
(defvar snippets-test-observations nil)
(defvar snippets-test-server (list (getenv "SNIPPETS_TEST_SERVER") "serve" "--library" (getenv "SNIPPETS_TEST_LIBRARY")))

(defun snippets-test-note (key value) (push (cons key value) snippets-test-observations))

(defun snippets-test-finish (ok &optional error)
  (snippets-test-note 'ok (if ok t :json-false))
  (when error (snippets-test-note 'error (format "%S" error)))
  (with-temp-file (getenv "SNIPPETS_TEST_RESULT") (insert (json-encode snippets-test-observations)))
  (kill-emacs 0))

(defun snippets-test-wait (predicate seconds)
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    value))

(add-hook 'text-mode-hook #'yas-minor-mode)
(if (equal snippets-test-client "eglot")
    (progn (require 'eglot)
           (add-to-list 'eglot-server-programs (cons 'text-mode snippets-test-server))
           (add-hook 'text-mode-hook #'eglot-ensure))
  (require 'lsp-mode)
  (setq lsp-auto-guess-root t lsp-session-file (concat (getenv "SNIPPETS_TEST_RESULT") ".session"))
  (lsp-register-client
   (make-lsp-client :new-connection (lsp-stdio-connection snippets-test-server)
                    :activation-fn (lambda (&rest _) t) :add-on? t :server-id 'snippets-lsp))
  (add-hook 'text-mode-hook #'lsp-deferred))

(condition-case error
    (progn
      (find-file (getenv "SNIPPETS_TEST_FILE"))
      (run-hooks 'post-command-hook)
      (mapc #'timer-event-handler (copy-sequence timer-idle-list))
      (unless (snippets-test-wait
               (lambda () (if (equal snippets-test-client "eglot")
                              (eglot-current-server)
                            (and (bound-and-true-p lsp-mode) (lsp-workspaces))))
               30)
        (error "the client did not connect"))
      (snippets-test-note 'yas-minor-mode (if yas-minor-mode t :json-false))
      (goto-char (point-max))
      (insert "demo")
      (if (equal snippets-test-client "eglot") (eglot--signal-textDocument/didChange)
        (snippets-test-wait (lambda () nil) 0.3))
      (if (bound-and-true-p company-mode)
          (progn (company-manual-begin) (company-complete-selection))
        (completion-at-point))
      (snippets-test-wait (lambda () (string-match-p "done" (buffer-string))) 10)
      (snippets-test-note 'active-snippets (length (yas-active-snippets (point-min) (point-max))))
      (snippets-test-note 'text (buffer-substring-no-properties (point-min) (point-max)))
      (snippets-test-finish t))
  (error (snippets-test-finish nil error)))
