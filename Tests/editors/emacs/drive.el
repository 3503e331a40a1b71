;;; drive.el --- Emacs in batch mode, set up by editors/emacs/README.md (loaded before this file), used as a
;;; person would: complete a trigger, ask with the code action, save a selection.  -*- lexical-binding: t -*-
;;
;; Environment: SNIPPETS_TEST_CLIENT (eglot or lsp-mode), SNIPPETS_TEST_FILE (a .txt note to open),
;; SNIPPETS_TEST_RESULT (where the JSON observations go).  Every wait is bounded.

(require 'json)
(require 'cl-lib)

(defvar snippets-test-client (getenv "SNIPPETS_TEST_CLIENT"))
(defvar snippets-test-observations nil)
(defvar snippets-test-messages nil)

(defun snippets-test-note (key value)
  (push (cons key value) snippets-test-observations))

(defun snippets-test-finish (ok &optional stage error)
  (snippets-test-note 'ok (if ok t :json-false))
  (snippets-test-note 'stage (or stage "done"))
  (when error (snippets-test-note 'error (format "%S" error)))
  (snippets-test-note 'messages (vconcat (reverse snippets-test-messages)))
  (with-temp-file (getenv "SNIPPETS_TEST_RESULT")
    (insert (json-encode snippets-test-observations)))
  (kill-emacs 0))

;; What the echo area showed (the ask's answer arrives as window/showMessage).
(advice-add 'message :before
            (lambda (format-string &rest args)
              (when format-string
                (push (apply #'format-message format-string args) snippets-test-messages))))

(defun snippets-test-wait (predicate seconds)
  "Runs the event loop until PREDICATE holds or SECONDS pass; returns PREDICATE's value."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (sit-for 0.01))
    value))

(defvar snippets-test-stage "start")

(defun snippets-test-type (text)
  "Types TEXT key by key: each character a `self-insert-command' with the command hooks around it."
  (dolist (char (string-to-list text))
    (setq last-command-event char this-command 'self-insert-command)
    (run-hooks 'pre-command-hook)
    (self-insert-command 1 char)
    (run-hooks 'post-command-hook)
    (setq last-command this-command)
    (snippets-test-wait (lambda () nil) 0.02)))

(defun snippets-test-pick (prefix command)
  "Runs COMMAND interactively, answering its menu as a person would: the entry starting with PREFIX."
  (cl-letf (((symbol-function 'completing-read)
             (lambda (_prompt collection &rest _)
               (let ((choice (cl-find-if (lambda (entry) (string-prefix-p prefix (if (consp entry) (car entry) entry)))
                                         (all-completions "" collection))))
                 (snippets-test-note (intern (concat "menu-" prefix)) (vconcat (all-completions "" collection)))
                 (or choice (error "no menu entry starts with %S" prefix))))))
    ;; Invoked from the keyboard (M-x), not from a mouse menu: eglot then asks with completing-read.
    (let ((last-nonmenu-event ?x))
      (call-interactively command))))

(defun snippets-test-connected ()
  (if (equal snippets-test-client "eglot")
      (and (fboundp 'eglot-current-server) (eglot-current-server))
    (and (bound-and-true-p lsp-mode) (fboundp 'lsp-workspaces) (lsp-workspaces))))

(defun snippets-test-sync ()
  "Sends pending changes now, as both clients do before their next request."
  (if (equal snippets-test-client "eglot")
      (eglot--signal-textDocument/didChange)
    (snippets-test-wait (lambda () nil) 0.2)))

(condition-case error
    (progn
      (setq snippets-test-stage "open")
      (transient-mark-mode 1)
      (find-file (getenv "SNIPPETS_TEST_FILE"))
      (snippets-test-note 'major-mode (symbol-name major-mode))
      ;; eglot-ensure and lsp-deferred start the server from the command loop, which batch mode does not run.
      (run-hooks 'post-command-hook)
      ;; lsp-deferred waits for Emacs to go idle; batch mode never does, so run what is due then.
      (mapc #'timer-event-handler (copy-sequence timer-idle-list))
      (setq snippets-test-stage "connect")
      (unless (snippets-test-wait #'snippets-test-connected 30)
        (error "the client did not connect"))
      (snippets-test-note 'yas-minor-mode (if (bound-and-true-p yas-minor-mode) t :json-false))

      (setq snippets-test-stage "complete")
      (goto-char (point-max))
      ;; Typed as a person types: each key a self-insert command, so company's idle timer starts the menu.
      ;; The first letters of the trigger (typed in full, a sole exact match, company closes its menu).
      (snippets-test-type "invf")
      (snippets-test-wait (lambda () (bound-and-true-p company-candidates)) 10)
      ;; lsp-mode turns company on at its first completion; eglot's set-up turns it on with the mode.
      (snippets-test-note 'company-mode (if (bound-and-true-p company-mode) t :json-false))
      (snippets-test-note 'company-capf (if (and (boundp 'company-backends)
                                                 (cl-some (lambda (b) (or (eq b 'company-capf) (and (consp b) (memq 'company-capf b))))
                                                          company-backends))
                                            t :json-false))
      (snippets-test-note 'company-candidates (vconcat (bound-and-true-p company-candidates)))
      (unless (bound-and-true-p company-candidates)
        (error "no completion menu popped up after typing a trigger"))
      ;; RET in company's menu.
      (company-complete-selection)
      (snippets-test-wait (lambda () (string-match-p "Quote invoice" (buffer-string))) 10)
      (snippets-test-note 'completed (buffer-substring-no-properties (point-min) (point-max)))
      (when (bound-and-true-p yas-minor-mode) (ignore-errors (yas-exit-all-snippets)))

      (setq snippets-test-stage "ask")
      (erase-buffer)
      (insert "Dear client,\n?? how do I remind a client about an overdue invoice\nBest")
      (goto-char (point-min))
      (forward-line 1)
      (end-of-line)
      (snippets-test-sync)
      (if (equal snippets-test-client "eglot")
          (snippets-test-pick "Ask snippets" #'eglot-code-actions)
        (call-interactively #'lsp-execute-code-action))
      (unless (snippets-test-wait (lambda () (string-match-p "overdue\\." (buffer-string))) 15)
        (error "the ask's edit was not applied"))
      (snippets-test-wait (lambda () (cl-some (lambda (m) (string-match-p "Gentle payment reminder" m)) snippets-test-messages)) 5)
      (snippets-test-note 'asked (buffer-substring-no-properties (point-min) (point-max)))

      (setq snippets-test-stage "save")
      (erase-buffer)
      (insert "Thank you for your business, it was a pleasure.")
      (snippets-test-sync)
      (push-mark (point-min) t t)
      (goto-char (point-max))
      (if (equal snippets-test-client "eglot")
          (snippets-test-pick "Save selection" #'eglot-code-actions)
        (lsp-execute-code-action-by-kind "refactor.extract"))
      (unless (snippets-test-wait
               (lambda ()
                 (with-temp-buffer
                   (ignore-errors (insert-file-contents (getenv "SNIPPETS_TEST_SAVED")))
                   (string-match-p "it was a pleasure" (buffer-string))))
               15)
        (error "the selection was not saved"))
      (snippets-test-finish t))
  (error (snippets-test-finish nil snippets-test-stage error)))
