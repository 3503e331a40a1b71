;;; harness.el --- what the Emacs drivers share: observations written as JSON after every stage  -*- lexical-binding: t; -*-
;;
;; Loaded by package_drive.el, prose_drive.el and multiword_drive.el.  Environment: SNIPPETS_TEST_CLIENT (eglot or lsp-mode),
;; SNIPPETS_TEST_RESULT (where the JSON observations go: rewritten after every stage, so a hang still tells where it
;; hung).  Every wait is bounded.

(require 'json)
(require 'cl-lib)

(defvar snippets-test-client (getenv "SNIPPETS_TEST_CLIENT"))
(defvar snippets-test-observations nil)
(defvar snippets-test-stage "start")

(defun snippets-test-write ()
  (with-temp-file (getenv "SNIPPETS_TEST_RESULT")
    (insert (json-encode (cons (cons 'stage snippets-test-stage) snippets-test-observations)))))

(defun snippets-test-note (key value)
  (push (cons key value) snippets-test-observations)
  (snippets-test-write))

(defun snippets-test-stage (name)
  (setq snippets-test-stage name)
  (snippets-test-write))

(defun snippets-test-finish (ok &optional error)
  (snippets-test-note 'ok (if ok t :json-false))
  (when error (snippets-test-note 'error (format "%S" error)))
  (kill-emacs 0))

(defun snippets-test-wait (predicate seconds)
  "Runs the event loop until PREDICATE holds or SECONDS pass; returns PREDICATE's value."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    value))

(defun snippets-test-type-keys (text)
  "Types TEXT key by key: each character a `self-insert-command' with the command hooks around it."
  (dolist (char (string-to-list text))
    (setq last-command-event char this-command 'self-insert-command)
    (run-hooks 'pre-command-hook)
    (self-insert-command 1 char)
    (run-hooks 'post-command-hook)
    (setq last-command this-command)
    (accept-process-output nil 0.02)))

(defun snippets-test-connected ()
  (if (equal snippets-test-client "eglot")
      (and (fboundp 'eglot-current-server) (eglot-current-server))
    (and (bound-and-true-p lsp-mode) (fboundp 'lsp-workspaces) (lsp-workspaces))))

(provide 'snippets-test-harness)
