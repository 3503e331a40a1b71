;;; prose_drive.el --- Emacs in batch mode, set up by editors/emacs/README.md (loaded before this file), writing
;;; prose in a text file key by key at a person's speed: RET after an ordinary word, RET after choosing an entry, a
;;; whole trigger with and without company's menu, TAB after a two-letter trigger and after an ordinary word.
;;; -*- lexical-binding: t -*-
;;
;; Each key is run as the command loop runs it: its command looked up in the keymaps active at that moment (company's
;; menu keymap, the minor modes', overlays'), run between `pre-command-hook' and `post-command-hook'.  (Not through
;; `execute-kbd-macro': each call starts its command loop by running `post-command-hook' with no command, which
;; company takes for C-g and closes its menu.)  Between keys the event loop runs (server replies, company's idle timer)
;; for an eighth of a second: 8 keys a second.
;;
;; Environment: SNIPPETS_TEST_CLIENT (eglot or lsp-mode), SNIPPETS_TEST_FILE (a .txt note to open),
;; SNIPPETS_TEST_RESULT (where the JSON observations go: rewritten after every stage).  Every wait is bounded.

(require 'json)
(require 'cl-lib)
(load (expand-file-name "harness.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun snippets-test-pause (seconds)
  "Lets SECONDS pass with the event loop running, as between a person's keys."
  (snippets-test-wait (lambda () nil) seconds))

(defun snippets-test-key (key)
  "Presses KEY (`kbd' syntax) as the command loop would."
  (let* ((keys (vconcat (kbd key)))
         (command (key-binding keys t)))
    (setq last-command-event (aref keys (1- (length keys)))
          this-command command
          real-this-command command)
    (run-hooks 'pre-command-hook)
    (when command (call-interactively command nil keys))
    (run-hooks 'post-command-hook)
    (setq last-command this-command
          real-last-command real-this-command)))

(defun snippets-test-type (text)
  "Types TEXT at 8 keys a second."
  (dolist (char (string-to-list text))
    (snippets-test-key (if (eq char ?\s) "SPC" (string char)))
    (snippets-test-pause 0.125)))

(defun snippets-test-menu ()
  "Company's menu, once it is open: its entries."
  (bound-and-true-p company-candidates))

(defun snippets-test-line ()
  (buffer-substring-no-properties (line-beginning-position) (line-end-position)))

(defun snippets-test-text ()
  (buffer-substring-no-properties (point-min) (point-max)))

(defun snippets-test-fresh-line ()
  "Leaves any snippet and starts an empty buffer."
  (when (bound-and-true-p yas-minor-mode) (ignore-errors (yas-exit-all-snippets)))
  (when (bound-and-true-p company-candidates) (company-abort))
  (erase-buffer))

(condition-case error
    (progn
      (snippets-test-stage "open")
      (find-file (getenv "SNIPPETS_TEST_FILE"))
      (snippets-test-note 'major-mode (symbol-name major-mode))
      ;; eglot-ensure and lsp-deferred start the server from the command loop, which batch mode does not run.
      (run-hooks 'post-command-hook)
      (mapc #'timer-event-handler (copy-sequence timer-idle-list))
      (snippets-test-stage "connect")
      (unless (snippets-test-wait #'snippets-test-connected 30)
        (error "the client did not connect"))
      (unless (snippets-test-wait #'snippets-lsp--connection 10)
        (error "snippets-lsp.el does not find the connection"))
      ;; The library is read: a trigger completes.
      (unless (snippets-test-wait
               (lambda ()
                 (erase-buffer)
                 (insert "invfoot")
                 (let ((inhibit-message t)) (ignore-errors (company-manual-begin)))
                 (prog1 (cl-some (lambda (c) (string-prefix-p "invfoot" c)) (snippets-test-menu))
                   (ignore-errors (company-abort))))
               30)
        (error "the library never completed"))
      (erase-buffer)
      (snippets-test-note 'company-mode (if (bound-and-true-p company-mode) t :json-false))

      ;; RET at the end of a sentence whose last word is in a snippet's title: the line ends, the word stays.
      (snippets-test-stage "prose-return")
      (snippets-test-fresh-line)
      (snippets-test-type "Please pay the invoice")
      (snippets-test-note 'prose-menu (vconcat (snippets-test-wait #'snippets-test-menu 10)))
      (snippets-test-key "RET")
      (snippets-test-pause 0.4)
      (snippets-test-type "Thanks")
      (snippets-test-note 'prose-text (snippets-test-text))

      ;; RET after choosing an entry with M-n takes that entry.
      (snippets-test-stage "chosen-return")
      (snippets-test-fresh-line)
      (snippets-test-type "invoice")
      (unless (snippets-test-wait (lambda () (cdr (snippets-test-menu))) 10)
        (error "no menu of two entries after typing \"invoice\": %S" (snippets-test-menu)))
      (snippets-test-note 'chosen-menu (vconcat (snippets-test-menu)))
      (snippets-test-key "M-n")
      (snippets-test-pause 0.4)
      (snippets-test-note 'chosen (nth company-selection company-candidates))
      (snippets-test-key "RET")
      (snippets-test-note 'chosen-text (snippets-test-text))

      ;; A whole trigger typed: the menu stays up, and TAB expands it.
      (snippets-test-stage "trigger-menu-tab")
      (snippets-test-fresh-line)
      (snippets-test-type "iban")
      (snippets-test-note 'trigger-menu (vconcat (snippets-test-wait #'snippets-test-menu 10)))
      (snippets-test-key "TAB")
      (snippets-test-note 'trigger-menu-text (snippets-test-text))

      ;; The yasnippet habit: the trigger, then TAB at once, before any menu.
      (snippets-test-stage "trigger-tab")
      (snippets-test-fresh-line)
      (snippets-test-type "iban")
      (snippets-test-note 'menu-before-tab (if (snippets-test-menu) t :json-false))
      (snippets-test-key "TAB")
      (snippets-test-note 'trigger-tab-text (snippets-test-text))

      ;; A trigger of two letters, which never pops a menu up by itself.
      (snippets-test-stage "short-trigger-tab")
      (snippets-test-fresh-line)
      (snippets-test-type "kr")
      (snippets-test-key "TAB")
      (snippets-test-note 'short-trigger-text (snippets-test-text))

      ;; TAB after an ordinary word does what it did.
      (snippets-test-stage "word-tab")
      (snippets-test-fresh-line)
      (snippets-test-type "hello")
      (snippets-test-key "TAB")
      (snippets-test-note 'word-tab-text (snippets-test-text))
      (snippets-test-stage "done")
      (snippets-test-finish t))
  (error (snippets-test-finish nil error)))
